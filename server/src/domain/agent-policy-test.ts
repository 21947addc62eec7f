import { z } from 'zod'
import type { Db } from '../core/db.ts'
import { CHECK_NAMES, type CheckName, GATEWAY_DECISIONS, type GatewayDecision } from '../core/enums.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import { Facts } from '../schemas/agent-gateway.ts'
import { type GatewayView, selectGatewayView } from '../store/agent-gateway.ts'
import { selectTools } from '../store/agent-tools.ts'
import { selectAgents } from '../store/agents.ts'
import { selectAllowedTimes } from '../store/agent-request-history.ts'
import { selectWorkspaceLimits } from '../store/limits.ts'
import { selectWorkspaceGate, type WorkspaceGate } from '../store/workspaces.ts'
import { decide } from './agent-decision.ts'
import { type DecisionAsk, decisionInputOf } from './agent-decision-input.ts'
import { HistoryCounts } from './agent-policy-counts.ts'
import { agentNamed, type ResolvedPolicy } from './agent-policy-model.ts'
import { policyViews } from './agent-policy-views.ts'
import { isCount, windowMs } from './agent-rules.ts'
import { closestField } from './document-fields.ts'
import type { DocumentWording } from './document-issues.ts'
import { documentErrorLine, pathText, readDocument } from './document-text.ts'

/**
 * `growth admin policy test`: policy unit tests. Each case (an agent asking a tool action with some
 * facts) is decided by the gateway's own code (decisionInputOf, then decide) under the policy, the
 * current limits and the stop switch of a workspace, and its decision and failing checks compared
 * with what the case expects. Nothing is recorded: no agent request, approval, allowance or event.
 * A case never reads or uses an approval: one a person would have to approve reads requires_approval.
 */

export const PolicyCase = z.strictObject({
  name: z.string().min(1).max(200),
  agent: z.string().min(1).max(200),
  tool: z.string().min(1).max(64),
  action: z.string().min(1).max(64),
  resource: z.string().min(1).max(500).optional(),
  facts: Facts.optional(),
  expect: z.enum(GATEWAY_DECISIONS),
  failing: z.array(z.enum(CHECK_NAMES)).optional(),
})
export type PolicyCase = z.output<typeof PolicyCase>

/** A file of cases: a list, or `{ cases: [...] }`. */
const CasesFile = z.union([z.array(PolicyCase), z.strictObject({ cases: z.array(PolicyCase) })])

/** A case decided; `reason` is the gateway's decision in words (why it needs a person, what denied it). */
type CaseResult = { name: string; expected: GatewayDecision; got: GatewayDecision; failing: CheckName[]; ok: boolean; reason: string }
type PolicyTestResult = { passed: number; failed: number; cases: CaseResult[] }

/**
 * The policy a case is decided under: for each ask, the view the gateway would judge it against.
 * The policy in force reads it from the database (selectGatewayView, a read and nothing else); a
 * policy held in memory (a document resolved, `growth admin policy test FILE`) makes it without a
 * read (agent-policy-views.ts), and the rest is the same.
 */
type PolicyUnderTest = { viewOf(ask: DecisionAsk, at: Date): GatewayView | Promise<GatewayView> }

function inForce(db: Db, workspaceId: string): PolicyUnderTest {
  return {
    async viewOf(ask) {
      const read = await selectGatewayView(db, workspaceId, ask)
      if (!read) throw new NotFoundError('workspace', workspaceId)
      return read.view
    },
  }
}

/**
 * A policy in memory as the gateway would see it in force: the workspace's limits and stop switch,
 * and count conditions counted on the workspace's recorded history up to `at` (read once, for the
 * longest window the policy's rules count over).
 */
async function inMemory(db: Db, workspaceId: string, policy: ResolvedPolicy, gate: WorkspaceGate, at: Date): Promise<PolicyUnderTest> {
  const limits = await selectWorkspaceLimits(db, workspaceId)
  if (!limits) throw new NotFoundError('workspace', workspaceId)
  const counts = new HistoryCounts()
  const lookBack = Math.max(0, ...policy.rules.flatMap((r) => r.structure.when.filter(isCount).map((c) => windowMs(c.window) ?? 0)))
  if (lookBack) {
    for (const r of await selectAllowedTimes(db, workspaceId, { since: new Date(at.getTime() - lookBack), until: at })) counts.add(r.agent_id, r.tool, r.action, r.created_at.getTime())
  }
  return policyViews(policy, { gate, limits, counts })
}

/** The error code a refused cases file gives, by why it was refused. */
const REFUSALS = { too_large: 'cases_too_large', syntax: 'unreadable_document', schema: 'invalid_document' } as const

/** The cases of a file, and where a field of each stands in it: `CASES line 7, column 12`. */
type PolicyCases = { cases: PolicyCase[]; where(i: number, field: keyof PolicyCase): string }

/** The cases of a YAML or JSON file (JSON is YAML), every error naming its line, column, case and field. */
export function parsePolicyCases(text: string, source = 'CASES'): PolicyCases {
  const read = readDocument(text, CasesFile, { what: 'the cases file', wording: caseWording })
  if (!read.ok) throw new RuleError(REFUSALS[read.refusal], read.errors.map((e) => `${source} ${documentErrorLine({ ...e, path: '' })}`).join('\n'))
  const cases = Array.isArray(read.value) ? read.value : read.value.cases
  if (!cases.length) throw new RuleError('no_cases', `${source} holds no cases; give a list of cases, or { cases: [...] }.`)
  const listed = Array.isArray(read.value)
  const where = (i: number, field: string) => {
    const { line, column } = read.at(listed ? [i, field] : ['cases', i, field])
    return `${source} line ${line}, column ${column}`
  }
  const seen = new Map<string, number>()
  const twice: string[] = []
  cases.forEach((c, i) => {
    const before = seen.get(c.name)
    if (before === undefined) return void seen.set(c.name, i)
    twice.push(`${where(i, 'name')}: case ${i + 1} is named "${c.name}" like case ${before + 1}; name each case once.`)
  })
  if (twice.length) throw new RuleError('duplicate_case', twice.join('\n'))
  return { cases, where }
}

const CASE_FIELDS = Object.keys(PolicyCase.shape)

/** An issue in words: which case (by its name when it has one), which field, what is wrong. */
const caseWording: DocumentWording = (issue, path, value, root) => {
  if (issue.code === 'invalid_union') return undefined // a list, or { cases }: told by the branch meant
  const at = path[0] === 'cases' ? 1 : 0
  const i = path[at]
  if (typeof i !== 'number') return 'the file must be a list of cases, or { cases: [...] }.'
  const item = Array.isArray(root) ? root[i] : (root as { cases?: unknown[] })?.cases?.[i]
  const named = item && typeof item === 'object' && typeof (item as { name?: unknown }).name === 'string' ? ` "${(item as { name: string }).name}"` : ''
  const who = `case ${i + 1}${named}`
  // As a policy's paths are written: failing[0], not failing.0.
  const field = pathText(path.slice(at + 1))
  if (field === 'expect' && value === undefined) return `${who}: expect is missing; it is one of ${GATEWAY_DECISIONS.join(', ')}.`
  if (issue.code === 'invalid_type' && value === undefined) return `${who}: ${field} is missing.`
  if (field.startsWith('facts') && issue.code === 'unrecognized_keys') {
    return `${who}: unknown fact ${issue.keys.join(', ')}; the facts are ${Object.keys(Facts.shape).join(', ')}.`
  }
  if (field.startsWith('failing') && issue.code === 'invalid_value') return `${who}: ${field} names no check: ${JSON.stringify(value)}; the checks are ${CHECK_NAMES.join(', ')}.`
  if (field === 'expect' && issue.code === 'invalid_value') return `${who}: expect must be one of ${GATEWAY_DECISIONS.join(', ')}; got ${JSON.stringify(value)}.`
  if (issue.code === 'unrecognized_keys') {
    // One guess when a key is one slip from a field of a case (expected: expect).
    const meant = issue.keys.length === 1 && !field ? closestField(issue.keys[0]!, CASE_FIELDS) : undefined
    return `${who}: unknown field ${issue.keys.join(', ')}${field ? ` in ${field}` : ''}${meant ? ` (did you mean ${meant}?)` : ''}; a case has name, agent, tool, action, resource, facts, expect and failing.`
  }
  return `${who}: ${field || 'the case'} ${issue.message}`
}

/**
 * Decides every case under `policy` and the workspace's limits and stop switch, recording nothing.
 * Every case is checked first (its agent by id or name, its tool and action in the workspace's
 * catalogue): a bad one refuses the whole file, naming it, before anything is decided.
 */
export async function testPolicy(db: Db, workspaceId: string, { cases, where }: PolicyCases, opts: { policy?: ResolvedPolicy; at?: Date } = {}): Promise<PolicyTestResult> {
  const at = opts.at ?? new Date()
  const gate = await selectWorkspaceGate(db, workspaceId)
  if (!gate) throw new NotFoundError('workspace', workspaceId)
  // The agents and the catalogue the cases name: the policy's when one is given, else the workspace's.
  const [agents, tools] = opts.policy ? [opts.policy.agents, opts.policy.tools] : await Promise.all([selectAgents(db, workspaceId), selectTools(db, workspaceId)])
  // Every case is checked, and every mistake told (in the order of the file), as a document's are:
  // an owner fixes them in one go, not one run at a time.
  const mistakes: { code: string; line: string }[] = []
  const asks = cases.map((c, i): DecisionAsk | undefined => {
    const who = (field: keyof PolicyCase) => `${where(i, field)}: case ${i + 1} "${c.name}"`
    const refuse = (code: string, line: string) => void mistakes.push({ code, line })
    const found = agentNamed(agents, c.agent)
    if (!found.agent && found.named.length > 1) refuse('ambiguous_agent', `${who('agent')}: ${found.named.length} agents are named "${c.agent}" (${found.named.map((a) => a.id).join(', ')}); name it by its id.`)
    else if (!found.agent) refuse('unknown_agent', `${who('agent')}: no agent "${c.agent}" in workspace ${workspaceId}; its agents are ${found.active.map((a) => `${a.name} (${a.id})`).join(', ') || 'none'}.`)
    const tool = tools.find((t) => t.key === c.tool)
    if (!tool) refuse('unknown_tool', `${who('tool')}: no tool "${c.tool}" in workspace ${workspaceId}; its tools are ${tools.map((t) => t.key).join(', ')}.`)
    else if (!tool.actions.some((a) => a.key === c.action)) {
      refuse('unknown_action', `${who('action')}: the tool ${c.tool} has no action "${c.action}"; its actions are ${tool.actions.map((a) => a.key).join(', ')}.`)
    }
    if (!found.agent || !tool) return undefined
    return { agentId: found.agent.id, tool: c.tool, action: c.action, facts: c.facts ?? {} }
  })
  if (mistakes.length) throw new RuleError(mistakes[0]!.code, mistakes.map((m) => m.line).join('\n'))
  const policy = opts.policy ? await inMemory(db, workspaceId, opts.policy, gate, at) : inForce(db, workspaceId)
  const results: CaseResult[] = []
  for (const [i, c] of cases.entries()) {
    const ask = asks[i]!
    const input = await decisionInputOf(db, workspaceId, await policy.viewOf(ask, at), ask, at)
    // No prior approval: a test case never reads, waits for or uses one.
    const verdict = decide({ ...input, prior: null })
    const failing = verdict.checks.filter((k) => !k.passed).map((k) => k.name)
    const failingOk = !c.failing || sameSet(c.failing, failing)
    results.push({ name: c.name, expected: c.expect, got: verdict.decision, failing, ok: verdict.decision === c.expect && failingOk, reason: verdict.reason })
  }
  const passed = results.filter((r) => r.ok).length
  return { passed, failed: results.length - passed, cases: results }
}

const sameSet = (a: string[], b: string[]) => new Set(a).size === new Set(b).size && a.every((x) => b.includes(x))
