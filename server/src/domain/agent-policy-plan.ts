import type { Db } from '../core/db.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { inTransaction } from '../store/driver/db.ts'
import { selectMissingFacts, selectWorkspaceGate } from '../store/workspaces.ts'
import { type Backtest, backtestPolicy } from './agent-policy-backtest.ts'
import { type PolicyChange, planIdOf, policyChanges } from './agent-policy-changes.ts'
import { readPolicy } from './agent-policy-document.ts'
import { policyInForce, type ResolvedPolicy } from './agent-policy-model.ts'
import { resolvePolicy } from './agent-policy-resolve.ts'
import { windowMs } from './agent-rules.ts'
import { documentErrorLine } from './document-text.ts'

/**
 * `growth admin policy plan`: a policy document checked and resolved against the workspace, every
 * change it would make as a sentence, and the backtest of it over the recorded requests. The plan's
 * id is what `apply` takes (agent-policy-apply.ts).
 */

export type PolicyPlan = { planId: string; rulesVersion: { from: number; to: number }; changes: PolicyChange[]; backtest: Backtest }

/** The error code a refused document gives, by why it was refused. */
const REFUSALS = { too_large: 'policy_too_large', syntax: 'unreadable_document', schema: 'invalid_document' } as const

/**
 * The document in `text` resolved against the policy in force, or a refusal listing every error,
 * one line each: `FILE line 12, column 9: rules[0].agents[0]: no agent Pacer in this workspace; ...`.
 */
export function plannedPolicy(text: string, source: string, current: ResolvedPolicy): ResolvedPolicy {
  const read = readPolicy(text)
  const lines = (errors: Parameters<typeof documentErrorLine>[0][]) => errors.map((e) => `${source} ${documentErrorLine(e)}`).join('\n')
  if (!read.ok) throw new RuleError(REFUSALS[read.refusal], lines(read.errors))
  const resolved = resolvePolicy(read.value, read.at, current)
  if (!resolved.ok) throw new RuleError('invalid_policy', lines(resolved.errors))
  return resolved.policy
}

/** The policy in force with its rules version, as one read (a transaction). */
async function readInForce(db: Db, workspaceId: string): Promise<{ current: ResolvedPolicy; rulesVersion: number }> {
  return inTransaction(db, async (tx) => {
    const [gate, missingFacts] = await Promise.all([selectWorkspaceGate(tx, workspaceId), selectMissingFacts(tx, workspaceId)])
    if (!gate || !missingFacts) throw new NotFoundError('workspace', workspaceId, `No workspace ${workspaceId}.`)
    return { current: await policyInForce(tx, workspaceId, missingFacts), rulesVersion: gate.rules_version }
  })
}

/** `--since 7d`: how far back the backtest reads (30m, 24h, 7d; at most 9999 units). */
function sinceOf(since: string, now: Date): Date {
  const ms = windowMs(since)
  if (ms === undefined) throw new RuleError('since.duration', `since must be a duration such as 30m, 24h or 7d (got ${since}).`, 'since')
  return new Date(now.getTime() - ms)
}

/** The policy a document would put in force (`growth admin policy test FILE`), checked as plan checks it; nothing is applied. */
export async function documentPolicy(db: Db, workspaceId: string, text: string, source: string): Promise<ResolvedPolicy> {
  return plannedPolicy(text, source, (await readInForce(db, workspaceId)).current)
}

export async function planPolicy(db: Db, workspaceId: string, text: string, opts: { source: string; since?: string; now?: Date }): Promise<PolicyPlan> {
  const now = opts.now ?? new Date()
  const since = sinceOf(opts.since ?? '7d', now)
  const { current, rulesVersion } = await readInForce(db, workspaceId)
  const planned = plannedPolicy(text, opts.source, current)
  const changes = policyChanges(current, planned)
  const backtest = await backtestPolicy(db, workspaceId, { current, planned }, { since, at: now })
  return { planId: planIdOf(current, rulesVersion, planned), rulesVersion: { from: rulesVersion, to: rulesVersion + (changes.length ? 1 : 0) }, changes, backtest }
}
