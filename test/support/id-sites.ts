import { buildOpenApi } from '../../server/src/http/openapi/document.ts'
import { operations } from '../../server/src/http/operations.ts'

/**
 * Every place a request names a record by its id: a query parameter or a body member, per
 * operation. Each site builds a request around one id, the rest of it made of the calling
 * workspace's own real records (so that only the id can be what is wrong). `inputsTakingIds()`
 * reads the OpenAPI document for every input named `...Id`, so a new one fails the test until it
 * has its site here.
 */

/** The caller's own records, by kind, that a request needs besides the id under test. */
export type Own = { abTest: string; emailSend: string; decision: string; campaign: string; list: string; segment: string }

export type IdSite = {
  operationId: string
  /** The input, as `name` (query) or `member.path` (body). */
  input: string
  /** The prefix of the ids it takes. */
  prefix: string
  credential: 'live' | 'agent'
  request(id: string, own: Own): { query?: Record<string, string>; body?: unknown }
}

const action = (kind: string, args: Record<string, unknown>) => ({ body: { kind, args } })

export const ID_SITES: IdSite[] = [
  { operationId: 'listDecisions', input: 'missionId', prefix: 'msn', credential: 'live', request: (id) => ({ query: { missionId: id } }) },
  { operationId: 'listAgentRequests', input: 'agentId', prefix: 'agt', credential: 'live', request: (id) => ({ query: { agentId: id } }) },
  { operationId: 'listRequestLogs', input: 'credentialId', prefix: 'cred', credential: 'live', request: (id) => ({ query: { credentialId: id } }) },
  {
    operationId: 'createExperiment', input: 'subjectId', prefix: 'abt', credential: 'live',
    request: (id) => ({ body: { hypothesis: 'A subject line naming the roast will win on opens.', kind: 'email_ab_test', subjectId: id, expectation: 'a_better' } }),
  },
  {
    operationId: 'createExperiment', input: 'subjectId', prefix: 'snd', credential: 'live',
    request: (id) => ({ body: { hypothesis: 'Holding back a fifth shows the send adds orders.', kind: 'email_holdout', subjectId: id, expectation: 'send_adds' } }),
  },
  {
    operationId: 'createExperiment', input: 'decisionId', prefix: 'dec', credential: 'live',
    request: (id, own) => ({ body: { hypothesis: 'A subject line naming the roast will win on opens.', kind: 'email_ab_test', subjectId: own.abTest, expectation: 'a_better', decisionId: id } }),
  },
  { operationId: 'createAction', input: 'args.campaignId', prefix: 'cmp', credential: 'live', request: (id) => action('pause_campaign', { campaignId: id }) },
  { operationId: 'createAction', input: 'args.campaignId', prefix: 'cmp', credential: 'live', request: (id) => action('resume_campaign', { campaignId: id }) },
  { operationId: 'createAction', input: 'args.campaignId', prefix: 'cmp', credential: 'live', request: (id) => action('adjust_budget', { campaignId: id, changePercent: 10 }) },
  { operationId: 'createAction', input: 'args.campaignId', prefix: 'cmp', credential: 'live', request: (id, own) => action('send_campaign', { campaignId: id, listId: own.list }) },
  { operationId: 'createAction', input: 'args.listId', prefix: 'lst', credential: 'live', request: (id, own) => action('send_campaign', { campaignId: own.campaign, listId: id }) },
  { operationId: 'createAction', input: 'args.segmentId', prefix: 'seg', credential: 'live', request: (id, own) => action('send_campaign', { campaignId: own.campaign, segmentId: id }) },
  { operationId: 'createAction', input: 'args.listId', prefix: 'lst', credential: 'live', request: (id) => action('tag_contacts', { tag: 'vip', listId: id }) },
  { operationId: 'createAction', input: 'args.segmentId', prefix: 'seg', credential: 'live', request: (id) => action('tag_contacts', { tag: 'vip', segmentId: id }) },
  { operationId: 'importContacts', input: 'listId', prefix: 'lst', credential: 'live', request: (id) => ({ body: { contacts: [{ email: 'isolation@example.com' }], listId: id } }) },
  { operationId: 'reportAgentResult', input: 'authorizationId', prefix: 'auth', credential: 'agent', request: (id) => ({ body: { authorizationId: id, status: 'completed' } }) },
]

type Json = Record<string, any>

/** Every input of the document named `...Id` (query parameters, and body members at any depth, through anyOf/oneOf), as `operationId input`. */
export function inputsTakingIds(): string[] {
  const doc = buildOpenApi(operations) as Json
  const deref = (s: Json): Json => (typeof s?.$ref === 'string' ? s.$ref.slice(2).split('/').reduce((n: Json, p: string) => n[p], doc) : s)
  const found = new Set<string>()
  const walk = (opId: string, schema: Json, at: string[]) => {
    const s = deref(schema)
    if (!s || typeof s !== 'object') return
    for (const key of ['anyOf', 'oneOf', 'allOf']) for (const sub of s[key] ?? []) walk(opId, sub, at)
    for (const [name, sub] of Object.entries((s.properties ?? {}) as Json)) {
      if (/Id$/.test(name)) found.add(`${opId} ${[...at, name].join('.')}`)
      walk(opId, sub, [...at, name])
    }
    if (s.items) walk(opId, s.items, at)
  }
  for (const item of Object.values(doc.paths as Json)) {
    for (const op of Object.values(item as Json) as Json[]) {
      for (const p of (op.parameters ?? []).map(deref)) if (p.in === 'query' && /Id$/.test(p.name)) found.add(`${op.operationId} ${p.name}`)
      const body = op.requestBody?.content?.['application/json']?.schema
      if (body) walk(op.operationId, body, [])
    }
  }
  return [...found].sort()
}
