import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { createToken, SCOPES } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'
import { tokenShownLines } from './shown.ts'

type Options = CommonOptions & { workspace: string; test?: boolean; scopes?: string; expiresAt?: string }

/** growth admin token create --workspace ID [--test] [--scopes a,b,...|all] [--expires-at ISO] */
export function registerTokenCreate(token: Command) {
  token
    .command('create')
    .description('issue an API token for a workspace (shown once)')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option('--test', 'a test-mode token (svc_test_...) instead of a live one')
    .option('--scopes <list>', `comma-separated scopes, or all (default: all); scopes are ${SCOPES.join(', ')}`)
    .option('--expires-at <time>', 'when the token stops working, ISO 8601 (default: never)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const t = await createToken(sql, { workspaceId: opts.workspace, test: opts.test, scopes: opts.scopes, expiresAt: opts.expiresAt, by: operatorAuditActor() })
        out.result(t, () => [`Created ${t.mode} token ${t.id} for workspace ${opts.workspace}`, ...tokenShownLines(t)])
        out.note(`Warning: this token will not be shown again. Store it now; if it is lost, revoke it (growth admin token revoke ${t.id}) and create another.`)
      }),
    )
}
