import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { revokeToken } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/** growth admin token revoke ID */
export function registerTokenRevoke(token: Command) {
  token
    .command('revoke')
    .description('revoke a token or agent credential at once (it stops working on the next request)')
    .argument('<id>', 'the credential id (cred_...)')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await revokeToken(sql, id, operatorAuditActor())
        out.result(r, () => (r.alreadyRevoked ? `Credential ${r.id} was already revoked; nothing changed.` : `Revoked credential ${r.id}`))
      }),
    )
}
