import type { Command } from 'commander'
import { plural, withDatabase, type CommonOptions } from '../../context.ts'
import { JSON_FLAG } from '../../output.ts'

/** growth admin migrate */
export function registerMigrate(admin: Command) {
  admin
    .command('migrate')
    .description('bring the database schema up to date (every command also does this first)')
    .option(...JSON_FLAG)
    .action((opts: CommonOptions) =>
      withDatabase(
        opts,
        async ({ out, migration, where }) => {
          out.result(migration, () =>
            migration.applied.length
              ? [`Applied ${plural(migration.applied.length, 'migration')} to the ${where}:`, ...migration.applied.map((m) => `  ${m}`)]
              : `The ${where} is up to date (${plural(migration.alreadyApplied, 'migration')} already applied).`,
          )
        },
        { reportMigration: false, createsDatabase: true },
      ),
    )
}
