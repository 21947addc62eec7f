import { createHash } from 'node:crypto'
import { canonicalJson } from '../core/canonical-json.ts'
import type { ToolActionJson } from '../store/agent-tools.ts'
import type { PolicyAgentGrant, PolicyTool, ResolvedPolicy } from './agent-policy-model.ts'
import { sortedPermissions } from './agent-policy-resolve.ts'
import { ruleSentence } from './agent-rules.ts'
import { ceilingsView, parseCeilings, permissionsView } from './agents.ts'

/**
 * What a planned policy changes against the policy in force, each change a sentence a person reads
 * (the words GET /agents/rules, /agents and /agent/me use: ruleSentence, permissionsView,
 * ceilingsView), and the plan's id: a digest of both policies and the rules version, so that
 * `apply` can tell that the policy in force is still the one the plan was made against.
 *
 * Rules are compared by id: a rule kept with its structure and effect is no change. A rule whose
 * structure or effect changed is the old rule removed and a new one added (with a new id), because
 * past decisions name the rule they were judged by, and that rule keeps what it said.
 */

export type PolicyChange = { kind: 'tool' | 'action' | 'agent' | 'rule'; op: 'add' | 'change' | 'remove'; key: string; sentence: string }

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const list = (xs: string[]) => (xs.length ? xs.join(', ') : 'none')

/** The policy as one comparable value: tools and actions by key, agents by id, sets sorted. */
function canonicalPolicy(p: ResolvedPolicy): unknown {
  const byKey = <T extends { key: string }>(xs: T[]) => [...xs].sort((a, b) => a.key.localeCompare(b.key))
  return JSON.parse(
    JSON.stringify({
      tools: byKey(p.tools).map((t) => ({ ...t, actions: byKey(t.actions) })),
      agents: [...p.agents].sort((a, b) => a.id.localeCompare(b.id)).map(grantValue),
      missingFacts: p.missingFacts,
      rules: p.rules.map((r) => ({ id: r.id, effect: r.effect, structure: r.structure })),
    }),
  )
}

/** What one agent may do, as a comparable value (ceilings as the gateway reads them). */
function grantValue(a: PolicyAgentGrant) {
  const c = parseCeilings(a.ceilings)
  // Through JSON: a ceiling not set is left out, not kept as undefined.
  return JSON.parse(JSON.stringify({
    id: a.id,
    ceilings: { ...c, amounts: c.amounts?.length ? c.amounts : undefined },
    data_access: [...new Set(a.data_access)].sort(),
    max_unattended_risk: a.max_unattended_risk,
    permissions: sortedPermissions(a.permissions),
  })) as { id: string; ceilings: unknown; data_access: string[]; max_unattended_risk: string; permissions: { tool: string; action: string }[] }
}

/** `plan_` and the SHA-256 of the policy in force, its rules version and the planned policy. */
/** Whether two grants of one agent differ in anything the gateway reads. */
export const grantDiffers = (a: PolicyAgentGrant, b: PolicyAgentGrant) => canonicalJson(grantValue(a)) !== canonicalJson(grantValue(b))

/** Whether a rule of the planned policy is one in force, unchanged (same id, structure and effect). */
export const ruleKept = (current: ResolvedPolicy, r: ResolvedPolicy['rules'][number]) =>
  r.id !== null && current.rules.some((c) => c.id === r.id && c.effect === r.effect && canonicalJson(c.structure) === canonicalJson(r.structure))

export function planIdOf(current: ResolvedPolicy, rulesVersion: number, planned: ResolvedPolicy): string {
  const text = canonicalJson({ inForce: canonicalPolicy(current), rulesVersion, planned: canonicalPolicy(planned) })
  return `plan_${createHash('sha256').update(text).digest('hex')}`
}

function actionSentence(tool: PolicyTool, a: ToolActionJson): string {
  return `Adds the action ${a.name} (${tool.key}.${a.key}) to ${tool.name}: risk ${a.risk}, uses ${list(a.dataUsed)}, ${a.reversible ? 'reversible' : 'not reversible'}.`
}

function toolChanges(current: PolicyTool[], planned: PolicyTool[]): PolicyChange[] {
  const out: PolicyChange[] = []
  for (const t of planned) {
    const was = current.find((x) => x.key === t.key)
    if (!was) {
      out.push({ kind: 'tool', op: 'add', key: t.key, sentence: `Adds the tool ${t.name} (${t.key}) with ${plural(t.actions.length, 'action')}.` })
      for (const a of t.actions) out.push({ kind: 'action', op: 'add', key: `${t.key}.${a.key}`, sentence: actionSentence(t, a) })
      continue
    }
    const fields = [
      ...(was.name !== t.name ? [`name ${was.name} -> ${t.name}`] : []),
      ...(was.description !== t.description ? [`description "${was.description}" -> "${t.description}"`] : []),
    ]
    if (fields.length) out.push({ kind: 'tool', op: 'change', key: t.key, sentence: `Changes the tool ${t.key}: ${fields.join('; ')}.` })
    for (const a of t.actions) {
      const old = was.actions.find((x) => x.key === a.key)
      const key = `${t.key}.${a.key}`
      if (!old) {
        out.push({ kind: 'action', op: 'add', key, sentence: actionSentence(t, a) })
        continue
      }
      const diffs = [
        ...(old.name !== a.name ? [`name ${old.name} -> ${a.name}`] : []),
        ...(old.risk !== a.risk ? [`risk ${old.risk} -> ${a.risk}`] : []),
        ...(canonicalJson([...old.dataUsed].sort()) !== canonicalJson([...a.dataUsed].sort()) ? [`data used ${list(old.dataUsed)} -> ${list(a.dataUsed)}`] : []),
        ...(old.reversible !== a.reversible ? [`reversible ${old.reversible ? 'yes' : 'no'} -> ${a.reversible ? 'yes' : 'no'}`] : []),
      ]
      if (diffs.length) out.push({ kind: 'action', op: 'change', key, sentence: `Changes ${key}: ${diffs.join('; ')}.` })
    }
    for (const a of was.actions) {
      if (!t.actions.some((x) => x.key === a.key)) {
        out.push({ kind: 'action', op: 'remove', key: `${t.key}.${a.key}`, sentence: `Retires the action ${a.name} (${t.key}.${a.key}); its past decisions stay readable.` })
      }
    }
  }
  for (const t of current) {
    if (!planned.some((x) => x.key === t.key)) {
      out.push({ kind: 'tool', op: 'remove', key: t.key, sentence: `Retires the tool ${t.name} (${t.key}) and its ${plural(t.actions.length, 'action')}; its past decisions stay readable.` })
    }
  }
  return out
}

function agentChanges(current: PolicyAgentGrant[], planned: PolicyAgentGrant[], actionNames: Record<string, string>): PolicyChange[] {
  const out: PolicyChange[] = []
  for (const p of planned) {
    const c = current.find((x) => x.id === p.id)
    if (!c) continue
    const key = p.id
    const has = (ps: { tool: string; action: string }[], q: { tool: string; action: string }) => ps.some((x) => x.tool === q.tool && x.action === q.action)
    for (const v of permissionsView(p.name, sortedPermissions(p.permissions.filter((q) => !has(c.permissions, q))), actionNames)) {
      out.push({ kind: 'agent', op: 'add', key, sentence: v.sentence.replace(`${p.name} may `, `${p.name} may now `) })
    }
    for (const v of permissionsView(p.name, sortedPermissions(c.permissions.filter((q) => !has(p.permissions, q))), actionNames)) {
      out.push({ kind: 'agent', op: 'remove', key, sentence: v.sentence.replace(`${p.name} may `, `${p.name} may no longer `) })
    }
    const was = grantValue(c)
    const now = grantValue(p)
    if (canonicalJson(was.data_access) !== canonicalJson(now.data_access)) {
      out.push({ kind: 'agent', op: 'change', key, sentence: `${p.name}'s data access: ${list(was.data_access)} -> ${list(now.data_access)}.` })
    }
    if (was.max_unattended_risk !== now.max_unattended_risk) {
      out.push({ kind: 'agent', op: 'change', key, sentence: `${p.name}'s highest risk without a person: ${was.max_unattended_risk} -> ${now.max_unattended_risk}.` })
    }
    if (canonicalJson(was.ceilings) !== canonicalJson(now.ceilings)) {
      const words = (g: PolicyAgentGrant) => ceilingsView(parseCeilings(g.ceilings)).sentences.join(' ')
      out.push({ kind: 'agent', op: 'change', key, sentence: `${p.name}'s ceilings: ${words(c)} -> ${words(p)}` })
    }
  }
  return out
}

const MISSING_WORDS = { require_approval: 'sends the request to a person', ignore: 'is ignored' } as const

const REMOVES_RULE = 'Removes the rule: '
const ADDS_RULE = 'Adds the rule: '

/**
 * The rules a plan replaces with a rule that says the same: most often a rule written without the
 * id the rule in force has (a file written by hand, or kept from before its first apply), which is a
 * new rule by the contract. Each is told once, with the id that would keep it, so an owner does not
 * replace every rule (and the ids past decisions name) without meaning to. Read off the changes'
 * own sentences, written just below: two rules say the same when their sentences are the same.
 * `whereIds`: where the owner finds the rules with their ids, in the words of the place that plans
 * (a command for the CLI, the page's own document for the console).
 */
export function sameRuleNotes(changes: readonly PolicyChange[], whereIds: string): string[] {
  const removed = new Map<string, string>()
  for (const c of changes) if (c.kind === 'rule' && c.op === 'remove' && c.sentence.startsWith(REMOVES_RULE)) removed.set(c.sentence.slice(REMOVES_RULE.length), c.key)
  const notes: string[] = []
  for (const c of changes) {
    if (c.kind !== 'rule' || c.op !== 'add' || !c.sentence.startsWith(ADDS_RULE)) continue
    const said = c.sentence.slice(ADDS_RULE.length)
    const id = removed.get(said)
    if (!id) continue
    removed.delete(said)
    notes.push(
      `Note: ${c.key} says what ${id} in force says but is written without its id, so it replaces that rule with a new one (past decisions keep naming ${id}). ` +
        `To keep the rule as it is, give it "id: ${id}" (${whereIds}).`,
    )
  }
  return notes
}

/** Every change `planned` makes to `current`, tools first, then agents, what a missing fact does, and rules. */
export function policyChanges(current: ResolvedPolicy, planned: ResolvedPolicy): PolicyChange[] {
  const toolNames = (p: ResolvedPolicy) => Object.fromEntries(p.tools.flatMap((t) => [[t.key, t.name], ...t.actions.map((a) => [`${t.key}.${a.key}`, a.name])]))
  const agentNames = (p: ResolvedPolicy) => Object.fromEntries(p.agents.map((a) => [a.id, a.name]))
  // An action is named as the planned catalogue names it, or as the one in force did (a retired one).
  const actionNames = Object.fromEntries([current, planned].flatMap((p) => p.tools.flatMap((t) => t.actions.map((a) => [`${t.key}.${a.key}`, a.name]))))
  const out = [...toolChanges(current.tools, planned.tools), ...agentChanges(current.agents, planned.agents, actionNames)]
  if (current.missingFacts !== planned.missingFacts) {
    // The contract's kinds are tool, action, agent and rule: missingFacts is how every rule (and
    // ceiling, and limit) reads a fact not stated, so it is told as a change to the rules.
    out.push({
      kind: 'rule',
      op: 'change',
      key: 'missingFacts',
      sentence: `A fact a rule, ceiling or limit reads that a request did not state now ${MISSING_WORDS[planned.missingFacts]} (before: it ${MISSING_WORDS[current.missingFacts]}).`,
    })
  }
  const kept = planned.rules.filter((r) => ruleKept(current, r))
  for (const r of current.rules) {
    if (!kept.some((k) => k.id === r.id)) out.push({ kind: 'rule', op: 'remove', key: r.id!, sentence: `${REMOVES_RULE}${ruleSentence(r, toolNames(current), agentNames(current))}` })
  }
  planned.rules.forEach((r, i) => {
    if (!kept.includes(r)) out.push({ kind: 'rule', op: 'add', key: `rules[${i}]`, sentence: `${ADDS_RULE}${ruleSentence(r, toolNames(planned), agentNames(planned))}` })
  })
  return out
}
