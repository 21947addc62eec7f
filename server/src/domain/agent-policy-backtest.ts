import type { Db } from '../core/db.ts'
import type { GatewayDecision } from '../core/enums.ts'
import type { ResolvedPolicy } from './agent-policy-model.ts'

/**
 * The backtest of a planned policy (CONTRACT: Agent policy, `growth admin policy plan`): every agent
 * request recorded in the window decided again, by the gateway's own decision function, under the
 * policy in force and under the planned one; each whose decision would change, listed.
 */
export type BacktestChange = {
  authorizationId: string
  agentId: string
  agentName: string
  tool: string
  action: string
  createdAt: string
  before: GatewayDecision
  after: GatewayDecision
  sentence: string
}

export type Backtest = {
  since: string
  requests: number
  changed: BacktestChange[]
  byAgent: Record<string, { requests: number; changed: number; [transition: string]: number }>
  byToolAction: Record<string, { requests: number; changed: number; [transition: string]: number }>
}

export async function backtestPolicy(
  _db: Db,
  _workspaceId: string,
  _policies: { current: ResolvedPolicy; planned: ResolvedPolicy },
  _window: { since: Date; at: Date },
): Promise<Backtest> {
  // Being written on another branch (issue 27); this one is replaced by it on merge.
  return { since: _window.since.toISOString(), requests: 0, changed: [], byAgent: {}, byToolAction: {} }
}
