import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { issueAgentCredential, revokeToken } from '../../../core.ts'
import { CliError } from '../../../errors.ts'
import { JSON_FLAG } from '../../../output.ts'

/**
 * growth admin agent credential create --workspace ID --agent ID, and revoke CRED_ID: replace an
 * agent's credential (issue the new one, hand it over, revoke the old one by the id shown when it
 * was issued).
 */
export function registerAgentCredential(agent: Command) {
  const credential = agent.command('credential').description("an agent's credentials: issue another, revoke one")
  credential
    .command('create')
    .description('issue another credential for an agent (shown once)')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--agent <id>', 'the agent (agt_...)')
    .option(...JSON_FLAG)
    .action((opts: CommonOptions & { workspace: string; agent: string }) =>
      withDatabase(opts, async ({ sql, out }) => {
        if (!opts.agent.startsWith('agt_')) throw new CliError(`--agent must be an agent id (agt_...); got ${JSON.stringify(opts.agent)}`)
        const c = await issueAgentCredential(sql, opts.workspace, opts.agent, operatorAuditActor())
        out.result(c, () => [`Issued credential ${c.credentialId} for agent ${c.agentId}: ${c.credential}`])
        out.note(`Warning: this credential will not be shown again. Revoke the one it replaces with growth admin agent credential revoke <id>.`)
      }),
    )
  credential
    .command('revoke')
    .description('revoke an agent credential at once (it stops working on the next request)')
    .argument('<id>', 'the credential id (cred_...), as shown when it was issued')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions) =>
      withDatabase(opts, async ({ sql, out }) => {
        // A credential itself (svc_agt_...) is answered by revokeToken, with its id and never echoed.
        if (!id.startsWith('cred_') && !id.startsWith('svc_')) throw new CliError(`the credential id starts with cred_; got ${JSON.stringify(id)}`)
        const r = await revokeToken(sql, id, operatorAuditActor())
        out.result(r, () => (r.alreadyRevoked ? `Credential ${r.id} was already revoked; nothing changed.` : `Revoked credential ${r.id}`))
      }),
    )
}
