import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { sendTestEvent } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/** growth admin webhook test ID [--event TYPE] */
export function registerWebhookTest(webhook: Command) {
  webhook
    .command('test <id>')
    .description('send a webhook.test event (or, with --event, a sample of any event type) to this endpoint alone, delivered like any other')
    .option('--event <type>', 'send a sample of this event type (its example in the OpenAPI document) instead of webhook.test, as stripe trigger does')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions & { event?: string }) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await sendTestEvent(sql, id, opts.event)
        const type = opts.event?.trim() ?? 'webhook.test'
        out.result(r, () => `Queued ${type} event ${r.eventId} as delivery ${r.deliveryId}. See what came of it: growth admin webhook attempts ${id}`)
      }),
    )
}
