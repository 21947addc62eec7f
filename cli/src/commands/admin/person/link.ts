import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { signInLink } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/** growth admin person link ID */
export function registerPersonLink(person: Command) {
  person
    .command('link')
    .description('a one-time sign-in link to the console for a person, valid 15 minutes (its base is CONSOLE_URL, else http://HOST:PORT/console)')
    .argument('<id>', 'the person (per_...)')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions) =>
      withDatabase(
        opts,
        async ({ sql, out, config }) => {
          const l = await signInLink(sql, { personId: id, consoleUrl: config.consoleUrl, by: operatorAuditActor() })
          out.result({ url: l.url, expiresAt: l.expiresAt }, () => [`Sign-in link for ${l.person.name} (${l.person.email}), valid until ${l.expiresAt}:`, `  ${l.url}`])
          out.note('It signs in once: give it to them alone, and make another if it expires.')
          // The server may run with another CONSOLE_URL, HOST or PORT than this shell has: say where the address came from.
          if (!config.consoleUrlSet) {
            out.note(`Its address is ${config.consoleUrl}, from ${process.env.HOST || process.env.PORT ? 'HOST and PORT' : 'the defaults of HOST and PORT'}, as CONSOLE_URL is not set here: if people reach the console elsewhere, run this again with CONSOLE_URL set as the server has it.`)
          }
        },
        { reportMigration: true, console: true },
      ),
    )
}
