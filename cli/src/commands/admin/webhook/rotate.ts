import type { Command } from 'commander'
import { CliError } from '../../../errors.ts'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { parseDuration, rotateSecret } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

type Options = CommonOptions & { overlap: string }

/** growth admin webhook rotate ID [--overlap 24h] */
export function registerWebhookRotate(webhook: Command) {
  webhook
    .command('rotate <id>')
    .description('give the endpoint a new secret; the old one keeps signing too for the overlap, so receivers switch without a failed check')
    .option('--overlap <duration>', 'how long the old secret keeps signing beside the new one, e.g. 24h, 30m, 0s', '24h')
    .option(...JSON_FLAG)
    .action((id: string, opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const overlapMs = parseDuration(opts.overlap)
        if (overlapMs === undefined) throw new CliError(`--overlap must be a duration such as 24h, 30m or 0s (got ${opts.overlap}).`)
        const r = await rotateSecret(sql, id, overlapMs, { by: operatorAuditActor() })
        out.result(r, () => [`Rotated the secret of ${id}; the old one keeps signing for ${opts.overlap}.`, `  Secret: ${r.secret}`])
        out.note('The secret will not be shown again.')
      }),
    )
}
