import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { setEndpointEnabled } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/** growth admin webhook disable|enable ID */
export function registerWebhookToggle(webhook: Command, verb: 'enable' | 'disable') {
  webhook
    .command(`${verb} <id>`)
    .description(
      verb === 'enable'
        ? 'resume deliveries: the circuit closes and the backlog drains at WEBHOOK_DRAIN_RATE a second'
        : 'stop deliveries to the endpoint; they wait and are not lost',
    )
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await setEndpointEnabled(sql, id, verb === 'enable', operatorAuditActor())
        out.result(r, () => (verb === 'enable' ? `Enabled ${id}: its backlog drains at the drain rate.` : `Disabled ${id}: its deliveries wait until it is enabled.`))
      }),
    )
}
