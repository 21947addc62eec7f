import type { Command } from 'commander'
import { operatorActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { actorText, setAgentsStopped } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

type Options = CommonOptions & { workspace: string; reason?: string }

/** growth admin agents resume --workspace ID */
export function registerAgentsResume(agents: Command) {
  agents
    .command('resume')
    .description('let the agents of a workspace act again after a stop')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option('--reason <text>', 'why, for the record (optional)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await setAgentsStopped(sql, { workspaceId: opts.workspace, stopped: false, reason: opts.reason, actor: operatorActor() })
        out.result(r, () => (r.changed ? [`Resumed the agents of workspace ${r.workspaceId}`, `  By: ${actorText(r.actor!)}`] : [`The agents of workspace ${r.workspaceId} were not stopped; nothing changed.`]))
      }),
    )
}
