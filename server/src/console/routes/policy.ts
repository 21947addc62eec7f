import { Elysia } from 'elysia'
import { RuleError } from '../../core/errors.ts'
import { listAgents } from '../../domain/agents.ts'
import { listRules } from '../../domain/agent-rules.ts'
import { applyPolicy } from '../../domain/agent-policy-apply.ts'
import { policyYaml } from '../../domain/agent-policy-document.ts'
import { exportPolicy, policyAgentLabel } from '../../domain/agent-policy-export.ts'
import { policyHistory } from '../../domain/agent-policy-history.ts'
import { planPolicy } from '../../domain/agent-policy-plan.ts'
import { parsePolicyCases, testPolicy } from '../../domain/agent-policy-test.ts'
import { personDecider } from '../../domain/deciders.ts'
import { limitSentences, loadWorkspaceLimits } from '../../domain/limits.ts'
import { AGENT_FIELDS, policyPage, type PolicyPageState, RULE_FIELDS } from '../pages/policy.ts'
import { answerAt } from '../pages/layout.ts'
import { addRuleEdit, agentEdit } from '../policy-edits.ts'
import { pageResponse, redirectTo } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'
import type { ConsoleSession } from '../session-port.ts'

/**
 * /console/policy: the policy read by everyone of the workspace (owners, approvers and viewers:
 * the contract's roles all read), planned, applied and tested by owners only, checked here on the
 * server for every POST. Plan, apply and test are the very functions `growth admin policy
 * plan|apply|test` call (one rule, one place); apply records the person as who applied it.
 */

/** A policy document is at most 1 MiB; form-encoded, up to three bytes a byte. */
const POLICY_FORM_BYTES = 3 * 1024 * 1024 + 64 * 1024
const HISTORY = 20
const RULES_SHOWN = 200
const AGENTS_SHOWN = 200
/** What the console calls the document in its errors (the CLI names the file). */
const SOURCE = 'policy'
const SINCE = ['24h', '7d', '30d']
const DONE = (n: number, v: number) => `Applied ${n} change${n === 1 ? '' : 's'}: rules version ${v} is in force, for the agents' very next requests.`

export function policyRoutes({ sql }: ConsoleDeps, { signedIn, signedInPost, problem }: RouteKit) {
  const page = async (session: ConsoleSession, extra: Partial<PolicyPageState> = {}): Promise<PolicyPageState> => {
    const ws = session.workspace.id
    const [policy, rules, agents, history, limits] = await Promise.all([
      exportPolicy(sql, ws),
      listRules(sql, ws, { limit: RULES_SHOWN }),
      listAgents(sql, ws, { limit: AGENTS_SHOWN }),
      policyHistory(sql, ws, HISTORY),
      loadWorkspaceLimits(sql, ws),
    ])
    // The agents the policy governs, as it names them: a retired agent acts no more, and its name
    // may be another's now (a form posting it would change that one).
    const active = agents.map((a) => a.item).filter((a) => a.retiredAt === null)
    return {
      session,
      rules: rules.map((r) => r.item),
      agents: active.map((a) => ({ ...a, label: policyAgentLabel(a, active) })),
      tools: policy.tools.map((t) => ({ key: t.key, name: t.name, actions: t.actions.map((a) => ({ key: a.key, name: a.name, risk: a.risk })) })),
      document: policyYaml(policy),
      history: history.applied,
      limits: limitSentences(limits),
      ...extra,
    }
  }
  const show = async (session: ConsoleSession, status: number, extra: Partial<PolicyPageState> = {}) => pageResponse(policyPage(await page(session, extra)), status)

  /** Owners only: an approver or a viewer reads the policy and changes nothing, even posting by hand. */
  const ownerOnly = (session: ConsoleSession) =>
    session.person.role === 'owner'
      ? null
      : problem(403, 'Not allowed', `You are ${session.person.role === 'approver' ? 'an approver' : 'a viewer'} of ${session.workspace.name}: you can read the policy, and an owner plans, applies and tests it.`, session)

  const sinceOf = (fields: URLSearchParams) => {
    const since = fields.get('since') || '7d'
    return SINCE.includes(since) ? since : null
  }

  return new Elysia({ name: 'console-policy' })
    .get('/console/policy', signedIn(async ({ request, session }) => {
      // The notice after an apply says what the history holds for that rules version, never what the URL says.
      const applied = new URL(request.url).searchParams.get('applied')
      const state = await page(session)
      const entry = applied && /^\d{1,9}$/.test(applied) ? state.history.find((h) => h.rulesVersion === Number(applied)) : undefined
      return pageResponse(policyPage(entry ? { ...state, notice: DONE(entry.changes.length, entry.rulesVersion) } : state))
    }))
    .post('/console/policy/plan', signedInPost(async ({ session }, fields) => {
      const refused = ownerOnly(session)
      if (refused) return refused
      const since = sinceOf(fields)
      if (!since) return show(session, 400, { error: `Backtest over ${SINCE.join(', ')} (got ${JSON.stringify(fields.get('since')?.slice(0, 20))}).` })
      let document = fields.get('document')
      const edit = fields.get('edit')
      if (edit === 'rule' || edit === 'agent') {
        const current = await exportPolicy(sql, session.workspace.id)
        const edited = edit === 'rule' ? addRuleEdit(current, fields) : agentEdit(current, fields)
        if ('refused' in edited) {
          // The form as it was sent, shown again beside the refusal (the rule's, or the one agent's).
          const typed = (keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, fields.get(k) ?? '']))
          return show(session, 400, { error: edited.refused, ...(edit === 'rule' ? { ruleForm: typed(RULE_FIELDS) } : { agentForm: { ...typed(AGENT_FIELDS), allow: fields.getAll('allow') } }) })
        }
        document = policyYaml(edited.policy)
      } else if (edit !== null) {
        return show(session, 400, { error: `edit must be rule or agent, or absent with the document (got ${JSON.stringify(edit.slice(0, 20))}).` })
      }
      if (document === null || !document.trim()) return show(session, 400, { error: 'The document is empty: give the whole policy (the page shows the one in force).' })
      try {
        const plan = await planPolicy(sql, session.workspace.id, document, { source: SOURCE, since })
        return show(session, 200, { plan, draft: document, since })
      } catch (error) {
        if (error instanceof RuleError) return show(session, 400, { error: error.message, draft: document, since })
        throw error
      }
    }, POLICY_FORM_BYTES), { parse: 'none' })
    .post('/console/policy/apply', signedInPost(async ({ session }, fields) => {
      const refused = ownerOnly(session)
      if (refused) return refused
      const document = fields.get('document') ?? ''
      const planId = fields.get('plan') ?? ''
      try {
        const applied = await applyPolicy(sql, session.workspace.id, document, { source: SOURCE, planId, appliedBy: personDecider(session.person) })
        return redirectTo(answerAt(`/console/policy?applied=${applied.rulesVersion}`))
      } catch (error) {
        if (!(error instanceof RuleError)) throw error
        const stale = error.rule === 'stale_plan'
        const message = stale
          ? `The policy changed since this plan (someone applied another, or the document differs): nothing was applied. Plan again and review what it says.\n${error.message}`
          : error.message
        return show(session, stale ? 409 : 400, { error: message, draft: document })
      }
    }, POLICY_FORM_BYTES), { parse: 'none' })
    .post('/console/policy/test', signedInPost(async ({ session }, fields) => {
      const refused = ownerOnly(session)
      if (refused) return refused
      const cases = fields.get('cases') ?? ''
      try {
        const read = parsePolicyCases(cases, 'cases')
        const tested = await testPolicy(sql, session.workspace.id, read)
        return show(session, 200, { cases, tested })
      } catch (error) {
        if (error instanceof RuleError) return show(session, 400, { cases, testError: error.message })
        throw error
      }
    }, POLICY_FORM_BYTES), { parse: 'none' })
}
