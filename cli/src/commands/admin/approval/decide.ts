import type { Command } from 'commander'
import { operatorActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { decideApproval } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'

type Options = CommonOptions & { by?: string }

/**
 * growth admin approval approve|reject ID: a person decides a send or an agent's request waiting
 * for one. The decision is final, recorded with who and when; an expired approval is refused.
 */
export function registerApprovalDecision(approval: Command, verb: 'approve' | 'reject') {
  approval
    .command(`${verb} <id>`)
    .description(
      verb === 'approve'
        ? "approve a send or an agent's request (apr_...); the agent's same request is then allowed once within the approval's 24 hours"
        : "reject a send or an agent's request (apr_...); the agent's same request is then denied",
    )
    .option('--by <name>', 'who decides, for the record (default: operator:<your login>)')
    .option(...JSON_FLAG)
    .action((id: string, opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await decideApproval(sql, { id, approve: verb === 'approve', actor: opts.by ?? operatorActor() })
        out.result(r, () => [
          `${verb === 'approve' ? 'Approved' : 'Rejected'} ${r.id} in workspace ${r.workspaceId}`,
          ...table([
            ['Summary:', r.summary],
            ['Asked by:', r.requestedBy],
            ['Decided by:', `${r.decidedBy} at ${r.decidedAt}`],
            ...(verb === 'approve' && r.kind === 'agent_request' && r.expiresAt ? [['Valid until:', `${r.expiresAt} (once)`]] : []),
          ]),
        ])
      }),
    )
}
