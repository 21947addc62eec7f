import type { Command } from 'commander'
import { operatorActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { decideAction, type Action } from '../../../core.ts'
import { JSON_FLAG, type Human } from '../../../output.ts'

/** What a person sees after deciding: the change, the decision, and what became of it. */
function render(a: Action): Human {
  const lines = [
    `${a.status === 'rejected' ? 'Rejected' : 'Approved'} ${a.id} (${a.kind}): ${a.plannedEffect.summary}`,
    `  Decided by: ${a.decidedBy} at ${a.decidedAt}`,
  ]
  if (a.status === 'applied') lines.push(`  Applied:    ${a.outcome?.detail}`)
  else if (a.status === 'failed') lines.push(`  Failed:     ${a.outcome?.error}`)
  else if (a.status !== 'rejected') lines.push(`  Status:     ${a.status}`)
  return lines
}

/** growth admin action approve|reject ID */
export function registerActionDecision(action: Command, decision: 'approve' | 'reject') {
  action
    .command(`${decision} <id>`)
    .description(
      decision === 'approve'
        ? 'approve a proposed change: it is carried out at once and ends applied or failed, with the outcome (approving again finishes one that was interrupted)'
        : 'reject a proposed change: it is never carried out',
    )
    .option('--by <name>', 'who decides, for the record (default: operator:<your login>)')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions & { by?: string }) =>
      withDatabase(opts, async ({ sql, out }) => {
        const a = await decideAction(sql, { actionId: id, decision, actor: opts.by ?? operatorActor() })
        out.result(a, () => render(a))
      }),
    )
}
