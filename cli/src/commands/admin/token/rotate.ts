import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { MAX_TOKEN_OVERLAP_MS, parseDuration, rotateToken } from '../../../core.ts'
import { CliError } from '../../../errors.ts'
import { JSON_FLAG } from '../../../output.ts'
import { tokenShownLines } from './shown.ts'

type Options = CommonOptions & { overlap: string }

/** growth admin token rotate ID [--overlap 24h]: a new token, the old one in force for the overlap (as Stripe rolls a key). */
export function registerTokenRotate(token: Command) {
  token
    .command('rotate')
    .description('replace a token with a new one of the same mode, scopes and expiry (shown once); the old one keeps working for the overlap, so its users switch without a refused call')
    .argument('<id>', 'the token’s id (cred_...)')
    .option('--overlap <duration>', 'how long the old token keeps working beside the new one, up to 7d, e.g. 24h, 30m, 0s (0s: it stops at once)', '24h')
    .option(...JSON_FLAG)
    .action((id: string, opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const overlapMs = parseDuration(opts.overlap)
        if (overlapMs === undefined) throw new CliError(`--overlap must be a duration such as 24h, 30m or 0s (got ${opts.overlap}).`)
        if (overlapMs > MAX_TOKEN_OVERLAP_MS) throw new CliError(`--overlap is at most 7d: the old token works at most a week beside the new one (got ${opts.overlap}).`)
        const t = await rotateToken(sql, id, overlapMs, { by: operatorAuditActor() })
        out.result(t, () => [`Rotated ${t.mode} token ${id}: ${t.id} replaces it; ${id} keeps working until ${t.oldEndsAt}`, ...tokenShownLines(t)])
        out.note(`Warning: this token will not be shown again. Give it to whatever used ${id} before ${t.oldEndsAt}; to end ${id} sooner: growth admin token revoke ${id}.`)
      }),
    )
}
