import type { Command } from 'commander'
import { withDatabase } from '../../../context.ts'
import { decideApproval } from '../../../core.ts'
import { JSON_FLAG, table } from '../../../output.ts'
import { decisionOf, decisionOptions, decisionRows, type DecisionOptions } from '../decision.ts'

/**
 * growth admin approval approve|reject ID: a person decides a send or an agent's request waiting
 * for one. The decision is final, recorded with the operator's login (and the --by note), when,
 * and the --reason; an expired approval is refused.
 */
export function registerApprovalDecision(approval: Command, verb: 'approve' | 'reject') {
  decisionOptions(
    approval
      .command(`${verb} <id>`)
      .description(
        verb === 'approve'
          ? "approve a send or an agent's request (apr_...); the agent's same request is then allowed once within the approval's 24 hours"
          : "reject a send or an agent's request (apr_...); the agent's same request is then denied",
      ),
  )
    .option(...JSON_FLAG)
    .action((id: string, opts: DecisionOptions) => {
      const decision = decisionOf(opts)
      return withDatabase(opts, async ({ sql, out }) => {
        const r = await decideApproval(sql, { id, approve: verb === 'approve', ...decision })
        out.result(r, () => [
          `${verb === 'approve' ? 'Approved' : 'Rejected'} ${r.id} in workspace ${r.workspaceId}`,
          ...table([
            ['Summary:', r.summary],
            ['Asked by:', r.requestedBy],
            ...decisionRows(r),
            ...(verb === 'approve' && r.kind === 'agent_request' && r.expiresAt ? [['Valid until:', `${r.expiresAt} (once)`]] : []),
          ]),
        ])
      })
    })
}
