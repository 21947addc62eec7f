import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { listPeople } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { workspace: string }

/** growth admin person list --workspace ID */
export function registerPersonList(person: Command) {
  person
    .command('list')
    .description('the people of a workspace and their roles (removed people are not listed)')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await listPeople(sql, opts.workspace)
        out.result(r, () =>
          r.people.length === 0
            ? `No people in workspace ${opts.workspace}. Add one: growth admin person add --workspace ${opts.workspace} --email EMAIL --name NAME --role owner`
            : table([['ID', 'ROLE', 'EMAIL', 'NAME'], ...r.people.map((p) => [p.id, p.role, p.email, p.name])], ''),
        )
      }),
    )
}
