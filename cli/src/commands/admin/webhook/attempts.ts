import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { limitOption } from '../../../limit-option.ts'
import { listAttempts } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { limit: string }

/** growth admin webhook attempts ID [--limit N] */
export function registerWebhookAttempts(webhook: Command) {
  webhook
    .command('attempts <id>')
    .description('every attempt to deliver to the endpoint, newest first: what was sent, what answered, what failed')
    .option('--limit <n>', 'how many attempts, 1 to 1000', '20')
    .option(...JSON_FLAG)
    .action((id: string, opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await listAttempts(sql, id, limitOption(opts.limit))
        out.result(r, () =>
          r.attempts.length === 0
            ? `No attempts to ${id} yet.`
            : table([
                ['AT', 'EVENT', 'ATTEMPT', 'STATUS', 'MS', 'ADDRESS', 'NEXT', 'DELIVERY'],
                ...r.attempts.flatMap((a) => [
                  [a.at, `${a.event} ${a.eventId}`, String(a.attempt), a.statusCode === null ? '-' : String(a.statusCode), String(a.durationMs), a.address ?? '-', a.nextAttemptAt ?? '-', a.deliveryId],
                  ...(a.error ? [[`  ${a.error}`]] : []),
                ]),
              ], ''),
        )
      }),
    )
}
