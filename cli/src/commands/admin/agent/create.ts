import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { createAgent } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { workspace: string; name: string; allow?: string }

/** growth admin agent create --workspace ID --name NAME [--allow tool.action,...] */
export function registerAgentCreate(agent: Command) {
  agent
    .command('create')
    .description('register an agent and issue its credential (shown once)')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--name <name>', 'the agent name, as people see it')
    .option('--allow <list>', 'comma-separated tool actions it may request, e.g. ads.pause_campaign (default: none)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const a = await createAgent(sql, { workspaceId: opts.workspace, name: opts.name, allow: opts.allow })
        const allowed = (opts.allow ?? '').split(',').map((s) => s.trim()).filter(Boolean)
        out.result({ id: a.id, name: a.name, credential: a.credential }, () => [
          `Created agent ${a.id} "${a.name}" in workspace ${opts.workspace}`,
          ...table([
            ['Allowed:', allowed.length ? allowed.join(', ') : 'nothing yet'],
            ['Credential:', a.credential],
          ]),
        ])
        out.note('Warning: this credential will not be shown again. Give it to the agent now.')
      }),
    )
}
