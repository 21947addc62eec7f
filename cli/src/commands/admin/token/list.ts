import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { listTokens, SCOPES, type TokenListed } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { workspace: string }

/**
 * growth admin token list --workspace ID: the workspace's API tokens as the console's Tokens page
 * lists them (those in force first, each newest first), by id, mode, state (and, rotated, the
 * token that replaced it), scopes and last four: what an operator needs to find the id to revoke.
 * Never the token itself (only its hash is kept).
 */
export function registerTokenList(token: Command) {
  token
    .command('list')
    .description("a workspace's API tokens: id, mode, state, scopes, last four, created, last used, expiry (those in force first)")
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await listTokens(sql, opts.workspace)
        out.result(r, () => {
          if (r.tokens.length === 0) return `No API token in workspace ${opts.workspace}. Issue one: growth admin token create --workspace ${opts.workspace}`
          const scopes = (t: TokenListed) => (SCOPES.every((s) => t.scopes.includes(s)) ? 'all' : t.scopes.join(','))
          return [
            ...table([
              ['ID', 'MODE', 'STATE', 'SCOPES', 'ENDS WITH', 'CREATED', 'LAST USED', 'EXPIRES'],
              ...r.tokens.map((t) => [t.id, t.mode, t.replacedBy ? `${t.state}, replaced by ${t.replacedBy}` : t.state, scopes(t), `…${t.hint}`, t.createdAt, t.lastUsedAt ?? 'never', t.expiresAt ?? 'never']),
            ], ''),
            ...(r.more ? [`Only the first ${r.tokens.length} are listed: those in force come first.`] : []),
          ]
        })
      }),
    )
}
