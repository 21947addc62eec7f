import { insertAbTest } from '../fixtures.ts'
import { insertCampaign, insertContacts, insertWorkflow } from '../write-fixtures.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { type Reply, send } from './cluster.ts'

/**
 * The writes the fault suite repeats, each in a fresh workspace of its own (fresh credentials too,
 * so no rate limit is reached), with a way to count its effect in the database.
 *
 * Every write of the API, each a different path through the domain:
 * - createExperiment: a plain insert behind a row lock (FOR SHARE on the test) and one event;
 * - createAction: the planner (reads the campaign, the workspace's limits) and one event;
 * - importContacts: an upsert behind the contacts-allowance lock, with one event per contact (a
 *   second run would answer "unchanged" and write no event: a different answer);
 * - trackEvent: a monthly allowance counter, a workflow run per listening workflow, their events;
 * - authorizeAgentAction: the agent gateway, with an agent credential (its keys are scoped per
 *   agent), many rows per request and the workspace's event sequence;
 * - reportAgentResult: a write whose repeat is refused *and recorded* (a kept 409), unique per
 *   authorization.
 */
export type WriteKind = 'createExperiment' | 'createAction' | 'importContacts' | 'trackEvent' | 'authorizeAgentAction' | 'reportAgentResult'
export const WRITE_KINDS: WriteKind[] = ['createExperiment', 'createAction', 'importContacts', 'trackEvent', 'authorizeAgentAction', 'reportAgentResult']

export type PreparedWrite = {
  kind: WriteKind
  workspaceId: string
  token: string
  path: string
  body: unknown
  /** Rows this write made, by table (and events by type): exactly what one run makes. */
  effect(): Promise<Record<string, number>>
  /** What one run of the write makes. */
  once: Record<string, number>
}

let serial = 0

async function counts(workspaceId: string, tables: string[], events: string[]): Promise<Record<string, number>> {
  const { sql } = await getHarness()
  const out: Record<string, number> = {}
  for (const t of tables) {
    const [r] = await sql.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${t} WHERE workspace_id = $1`, [workspaceId])
    out[t] = r!.n
  }
  for (const e of events) {
    const [r] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE workspace_id = ${workspaceId} AND type = ${e}`
    out[`event ${e}`] = r!.n
  }
  return out
}

/** A fresh workspace and one write of `kind` ready to send (an authorization first, for a result: through `base`). */
export async function prepareWrite(kind: WriteKind, base: string): Promise<PreparedWrite> {
  const ws = await makeWorkspace()
  const n = ++serial
  switch (kind) {
    case 'createExperiment': {
      const abt = await insertAbTest(ws.id, 'running')
      return {
        kind, workspaceId: ws.id, token: ws.live, path: '/experiments',
        body: { hypothesis: `Trial ${n}: a subject line naming the roast will win on opens.`, kind: 'email_ab_test', subjectId: abt, expectation: 'a_better' },
        effect: () => counts(ws.id, ['experiments'], ['experiment.created']),
        once: { experiments: 1, 'event experiment.created': 1 },
      }
    }
    case 'createAction': {
      const campaign = await insertCampaign(ws.id, { name: `Trial ${n}` })
      return {
        kind, workspaceId: ws.id, token: ws.live, path: '/actions',
        body: { kind: 'pause_campaign', args: { campaignId: campaign } },
        effect: () => counts(ws.id, ['actions'], ['action.proposed', 'action.refused']),
        once: { actions: 1, 'event action.proposed': 1, 'event action.refused': 0 },
      }
    }
    case 'trackEvent': {
      await insertContacts(ws.id, [{ email: `trial-${n}@example.com` }])
      await insertWorkflow(ws.id, 'order.placed')
      return {
        kind, workspaceId: ws.id, token: ws.live, path: '/track',
        body: { event: 'order.placed', email: `trial-${n}@example.com`, properties: { trial: n } },
        effect: async () => {
          const { sql } = await getHarness()
          const [u] = await sql<{ used: number }[]>`SELECT COALESCE(sum(used), 0)::int AS used FROM usage_counters WHERE workspace_id = ${ws.id} AND name = 'trackedEvents'`
          return { ...(await counts(ws.id, ['workflow_runs'], ['workflow.started'])), 'trackedEvents used': u!.used }
        },
        once: { workflow_runs: 1, 'event workflow.started': 1, 'trackedEvents used': 1 },
      }
    }
    case 'importContacts':
      return {
        kind, workspaceId: ws.id, token: ws.live, path: '/contacts',
        body: { contacts: [{ email: `trial-${n}@example.com`, name: `Trial ${n}`, tags: ['fault-suite'] }] },
        effect: () => counts(ws.id, ['contacts'], ['contact.created', 'contact.updated']),
        once: { contacts: 1, 'event contact.created': 1, 'event contact.updated': 0 },
      }
    case 'authorizeAgentAction':
      return {
        kind, workspaceId: ws.id, token: ws.agent.credential, path: '/agent/authorize',
        body: { tool: 'ads', action: 'pause_campaign', resource: `campaign ${n}`, summary: `Trial ${n}: pause the campaign` },
        effect: () => counts(ws.id, ['agent_requests'], ['agent.request.decided']),
        once: { agent_requests: 1, 'event agent.request.decided': 1 },
      }
    case 'reportAgentResult': {
      const auth = await send(base, 'POST', '/agent/authorize', { token: ws.agent.credential, body: { tool: 'ads', action: 'pause_campaign', summary: `Trial ${n}` } })
      if (auth.status !== 201 || auth.body.data.decision !== 'allowed') throw new Error(`setup: authorize answered ${auth.status} ${auth.text}`)
      return {
        kind, workspaceId: ws.id, token: ws.agent.credential, path: '/agent/result',
        body: { authorizationId: auth.body.data.authorizationId, status: 'completed', summary: `Trial ${n}: paused` },
        effect: () => counts(ws.id, ['agent_results', 'agent_result_refusals'], ['agent.result.reported']),
        once: { agent_results: 1, agent_result_refusals: 0, 'event agent.result.reported': 1 },
      }
    }
  }
}

/**
 * Holds a set of answers to one key against the contract (spec: Limits, rule 2; Errors 409): exactly
 * one first answer (not replayed); every other one either that answer replayed (same status, same
 * body, `Idempotent-Replayed: true`) or 409 `conflict` for a request still in flight. Returns the
 * problems found (none when the set is correct).
 */
export function judgeAnswers(replies: Reply[]): string[] {
  const problems: string[] = []
  const firsts = replies.filter((r) => r.headers.get('idempotent-replayed') === null && r.status !== 409)
  if (firsts.length !== 1) problems.push(`${firsts.length} answers were not replays (expected exactly 1): ${firsts.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join(' | ')}`)
  const first = firsts[0]
  if (first && (first.status < 200 || first.status >= 300)) problems.push(`the first answer is ${first.status} ${first.text.slice(0, 300)}`)
  for (const r of replies) {
    if (r === first) continue
    if (r.status === 409) {
      const e = r.body?.error
      if (e?.code !== 'conflict' || !/still being answered/.test(e?.message ?? '') || e?.requestId !== r.headers.get('x-request-id')) problems.push(`a 409 that is not the in-flight conflict: ${r.text.slice(0, 300)}`)
      if (r.headers.get('idempotent-replayed') !== null) problems.push('a 409 marked as a replay')
      continue
    }
    if (r.headers.get('idempotent-replayed') !== 'true') continue // counted above
    if (first && (r.status !== first.status || r.text !== first.text)) problems.push(`a replay differs from the first answer: ${r.status} ${r.text.slice(0, 200)} vs ${first.status} ${first.text.slice(0, 200)}`)
  }
  return problems
}
