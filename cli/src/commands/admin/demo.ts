import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../context.ts'
import { describe, JSON_FLAG, table } from '../../output.ts'

type Options = CommonOptions & { name?: string }

/** growth admin demo: a new workspace full of demo data, with its tokens and agents. */
export function registerDemo(admin: Command) {
  admin
    .command('demo')
    .description('create a workspace full of realistic demo data, with live and test tokens and two agents')
    .option('--name <name>', 'the workspace name (default: Northwind Coffee Roasters)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        // Loaded on demand: the demo data is only needed by this command.
        const { createDemoWorkspace } = await import('../../../../server/src/demo/index.ts')
        const demo = await createDemoWorkspace(sql, { name: opts.name })
        out.result(demo, () => [
          `Created demo workspace ${demo.workspace.id} "${demo.workspace.name}" on plan ${demo.workspace.plan}`,
          '',
          'Tokens (every scope; they will not be shown again):',
          ...table([
            ['live', demo.tokens.live],
            ['test', demo.tokens.test],
          ]),
          '',
          'Agents:',
          ...table(demo.agents.map((a) => [a.id, a.name, a.credential])),
          '',
          'Fixtures:',
          ...describe(demo.fixtures),
        ])
      }, { reportMigration: true, createsDatabase: true }),
    )
}
