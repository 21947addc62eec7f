import type { Command } from 'commander'
import { withDatabase } from '../../../context.ts'
import { decideAction, type Action } from '../../../core.ts'
import { JSON_FLAG, table, type Human } from '../../../output.ts'
import { decisionOf, decisionOptions, decisionRows, type DecisionOptions } from '../decision.ts'

/** What a person sees after deciding: the change, the decision, and what became of it. */
function render(a: Action): Human {
  const rows: string[][] = [...decisionRows(a)]
  if (a.status === 'applied') rows.push(['Applied:', a.outcome?.detail ?? ''])
  else if (a.status === 'failed') rows.push(['Failed:', a.outcome?.error ?? ''])
  else if (a.status !== 'rejected') rows.push(['Status:', a.status])
  return [`${a.status === 'rejected' ? 'Rejected' : 'Approved'} ${a.id} (${a.kind}): ${a.plannedEffect.summary}`, ...table(rows)]
}

/** growth admin action approve|reject ID */
export function registerActionDecision(action: Command, decision: 'approve' | 'reject') {
  decisionOptions(
    action
      .command(`${decision} <id>`)
      .description(
        decision === 'approve'
          ? 'approve a proposed change: it is carried out at once and ends applied or failed, with the outcome (approving again finishes one that was interrupted)'
          : 'reject a proposed change: it is never carried out',
      ),
  )
    .option(...JSON_FLAG)
    .action((id: string, opts: DecisionOptions) => {
      const decided = decisionOf(opts)
      return withDatabase(opts, async ({ sql, out }) => {
        const a = await decideAction(sql, { actionId: id, decision, ...decided })
        out.result(a, () => render(a))
      })
    })
}
