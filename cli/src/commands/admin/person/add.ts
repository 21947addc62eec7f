import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { addPerson, ROLES } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { workspace: string; email: string; name: string; role: string }

/** growth admin person add --workspace ID --email EMAIL --name NAME --role owner|approver|viewer */
export function registerPersonAdd(person: Command) {
  person
    .command('add')
    .description('add a person to a workspace, who can then sign in to the console')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--email <address>', 'their email address (one person per address in a workspace)')
    .requiredOption('--name <name>', 'their name, as decisions and the audit list show it')
    .requiredOption('--role <role>', `${ROLES.join(' | ')}: owner (everything), approver (decides, stops and resumes agents, reads), viewer (reads)`)
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const p = await addPerson(sql, { workspaceId: opts.workspace, email: opts.email, name: opts.name, role: opts.role, by: operatorAuditActor() })
        out.result(p, () => [`Added ${p.name} (${p.id}) to workspace ${opts.workspace}`, ...table([['Email:', p.email], ['Role:', p.role]])])
        out.note(`To give them a sign-in link: growth admin person link ${p.id}`)
      }),
    )
}
