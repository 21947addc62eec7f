import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { listEndpoints } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { workspace: string }

/** growth admin webhook list --workspace ID */
export function registerWebhookList(webhook: Command) {
  webhook
    .command('list')
    .description("a workspace's endpoints: status, why one is disabled, its circuit, its last success")
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await listEndpoints(sql, opts.workspace)
        out.result(r, () =>
          r.endpoints.length === 0
            ? `No webhook endpoints in workspace ${opts.workspace}. Add one: growth admin webhook create --workspace ${opts.workspace} --url URL --events TYPES`
            : [
                ...table([
                  ['ID', 'STATUS', 'CIRCUIT', 'LAST SUCCESS', 'URL', 'EVENTS'],
                  ...r.endpoints.map((e) => [
                    e.id,
                    e.status,
                    e.circuit.openUntil ? `${e.circuit.state} until ${e.circuit.openUntil}` : e.circuit.state,
                    e.lastSuccessAt ?? 'never',
                    e.url,
                    e.events.join(','),
                  ]),
                ], ''),
                ...r.endpoints.filter((e) => e.disabledReason).map((e) => `${e.id} is disabled: ${e.disabledReason}`),
              ],
        )
      }),
    )
}
