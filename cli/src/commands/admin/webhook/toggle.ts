import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { RECOVERY_WINDOW_MS, setEndpointEnabled } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/** "3 deliveries that failed in the last 72 hours go again, oldest first, at 10 a second." */
function recoveredInWords(requeued: number, drainRate: number): string {
  const window = `the last ${RECOVERY_WINDOW_MS / 3_600_000} hours`
  if (requeued === 0) return `nothing failed to it in ${window}; its backlog drains at the drain rate.`
  const what = requeued === 1 ? `1 delivery that failed in ${window} goes` : `${requeued} deliveries that failed in ${window} go`
  return `${what} again, oldest first, at ${drainRate} a second.`
}

/** growth admin webhook disable|enable ID */
export function registerWebhookToggle(webhook: Command, verb: 'enable' | 'disable') {
  webhook
    .command(`${verb} <id>`)
    .description(
      verb === 'enable'
        ? 'resume deliveries: the circuit closes, and the backlog and what failed in the last 72 hours go, oldest first, at WEBHOOK_DRAIN_RATE a second'
        : 'stop deliveries to the endpoint: what was queued waits for enable; events while it is disabled are not sent to it',
    )
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions) =>
      withDatabase(
        opts,
        async ({ sql, out, config }) => {
          const r = await setEndpointEnabled(sql, id, verb === 'enable', operatorAuditActor())
          out.result(r, () =>
            r.status === 'enabled'
              ? `Enabled ${id}: ${recoveredInWords(r.requeued, config.webhooks.drainRate)}`
              : r.changed
                ? `Disabled ${id}: what was queued for it waits until it is enabled; events from now until then are not sent to it.`
                : `${id} was disabled already; nothing changed. ${r.disabledReason ?? ''}`.trim(),
          )
        },
        // The drain rate it names is WEBHOOK_DRAIN_RATE, as the server and growth worker read it.
        { reportMigration: true, webhooks: true },
      ),
    )
}
