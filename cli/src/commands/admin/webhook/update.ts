import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { updateEndpoint } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { url?: string; events?: string }

/** growth admin webhook update ID [--url URL] [--events a,b]: the same endpoint, id and secrets, at a new URL or for new types. */
export function registerWebhookUpdate(webhook: Command) {
  webhook
    .command('update')
    .description("change an endpoint's URL or event types; its id and secret stay, so its receiver verifies as before")
    .argument('<id>', 'the endpoint (whe_...)')
    .option('--url <url>', 'the new URL, checked as at create: https, on the public internet (http and private ranges only as WEBHOOK_ALLOW_PRIVATE_NETWORKS allows)')
    .option('--events <types>', 'the event types it receives from now on, all of them, comma-separated (they replace the ones it had)')
    .option(...JSON_FLAG)
    .action((id: string, opts: Options) =>
      withDatabase(
        opts,
        async ({ config, sql, out }) => {
          const e = await updateEndpoint(sql, id, { url: opts.url, events: opts.events }, { addresses: config.webhooks.addresses }, { by: operatorAuditActor() })
          out.result(e, () => [
            e.changed ? `Updated webhook endpoint ${e.id}` : `Webhook endpoint ${e.id} already had this URL and these event types; nothing changed.`,
            ...table([
              ['URL:', e.url],
              ['Events:', e.events.join(', ')],
              ['Status:', e.status],
            ]),
            ...(e.changed ? ['Its secret is unchanged. A delivery waiting for its next attempt goes to this URL; events already made keep going to it.'] : []),
          ])
        },
        { webhooks: true },
      ),
    )
}
