import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { sendTestEvent } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/** growth admin webhook test ID */
export function registerWebhookTest(webhook: Command) {
  webhook
    .command('test <id>')
    .description('send a webhook.test event to this endpoint alone, delivered like any other')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await sendTestEvent(sql, id)
        out.result(r, () => `Queued webhook.test event ${r.eventId} as delivery ${r.deliveryId}. See what came of it: growth admin webhook attempts ${id}`)
      }),
    )
}
