import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { listWorkspaces } from '../../../core.ts'
import { limitOption } from '../../../limit-option.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { limit: string }

/** growth admin workspace list [--limit N] */
export function registerWorkspaceList(workspace: Command) {
  workspace
    .command('list')
    .description('the workspaces of this database, newest first: id, name, plan, whether their agents are stopped')
    .option('--limit <n>', 'how many, 1 to 1000', '50')
    .option(...JSON_FLAG)
    .action((opts: Options) => {
      const limit = limitOption(opts.limit)
      return withDatabase(opts, async ({ sql, out, where }) => {
        const r = await listWorkspaces(sql, limit)
        out.result(r, () =>
          r.workspaces.length === 0
            ? `No workspace in the ${where} yet. Make one: growth admin workspace create --name NAME (or growth admin demo).`
            : table([['ID', 'PLAN', 'AGENTS', 'CREATED', 'NAME'], ...r.workspaces.map((w) => [w.id, w.plan, w.agentsStopped ? 'stopped' : 'running', w.createdAt, w.name])], ''),
        )
        if (r.more) out.note(`More than ${limit} workspaces; --limit ${Math.min(limit * 2, 1000)} shows more.`)
      })
    })
}
