import type { Command } from 'commander'
import { operatorActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { actorText, setAgentsStopped } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

type Options = CommonOptions & { workspace: string; reason: string }

/** growth admin agents stop --workspace ID --reason TEXT */
export function registerAgentsStop(agents: Command) {
  agents
    .command('stop')
    .description("stop every agent of a workspace (the kill switch); their requests are refused until resumed")
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--reason <text>', 'why, for the record')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await setAgentsStopped(sql, { workspaceId: opts.workspace, stopped: true, reason: opts.reason, actor: operatorActor() })
        out.result(r, () =>
          r.changed
            ? [`Stopped all agents of workspace ${r.workspaceId}`, `  Reason: ${r.reason}`, `  By:     ${actorText(r.actor!)}`]
            : [`The agents of workspace ${r.workspaceId} were already stopped; nothing changed. The standing stop:`, `  Reason: ${r.reason ?? '(none recorded)'}`, `  By:     ${r.actor ? actorText(r.actor) : '(not recorded)'}`, ...(r.since ? [`  Since:  ${r.since}`] : [])],
        )
        out.note(`To let them act again: growth admin agents resume --workspace ${r.workspaceId}`)
      }),
    )
}
