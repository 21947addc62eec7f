import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { createEndpoint } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { workspace: string; url: string; events: string }

/** growth admin webhook create --workspace ID --url URL --events a,b */
export function registerWebhookCreate(webhook: Command) {
  webhook
    .command('create')
    .description('add an endpoint that receives the named event types, signed with a secret shown once')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--url <url>', 'where to POST: https, on the public internet (http and private ranges only as WEBHOOK_ALLOW_PRIVATE_NETWORKS allows)')
    .requiredOption('--events <types>', 'comma-separated event types, e.g. action.applied,contact.created')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(
        opts,
        async ({ config, sql, out }) => {
          const e = await createEndpoint(sql, { workspaceId: opts.workspace, url: opts.url, events: opts.events, by: operatorAuditActor() }, { addresses: config.webhooks.addresses })
          out.result({ id: e.id, secret: e.secret }, () => [
            `Created webhook endpoint ${e.id} for workspace ${opts.workspace}`,
            ...table([
              ['URL:', e.url],
              ['Events:', e.events.join(', ')],
              ['Secret:', e.secret],
            ]),
          ])
          out.note(`The secret will not be shown again; verify deliveries with it. Send a test event: growth admin webhook test ${e.id}`)
        },
        { webhooks: true },
      ),
    )
}
