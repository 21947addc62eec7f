// Bad requests for every operation of the table, generated with fast-check from each operation's
// example in the OpenAPI document (bad-requests.ts says how each is broken): wrong types, missing
// fields, 1 MB strings, deep nesting, NUL and odd Unicode, bad JSON and bytes that are not UTF-8,
// wrong content types, bad cursors and ids, bad headers, bad query parameters, wrong methods.
// Each is sent to the real test server; not one may be answered 5xx, and every answer must be in
// the envelope: JSON, `{ data }` for a success, and for a refusal exactly
// `{ error: { code, message, requestId } }` with a known code, its status, and the X-Request-Id.
//
// The requests of an operation are drawn with a fixed seed (FAULT_SEED, and the operationId), so a
// failure is replayed by running the file again; FAULT_BAD_RUNS sets how many per operation (300).
// All failures are collected and reported together, each with the request that caused it.
import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { STATUS_OF } from '../../server/src/http/answer.ts'
import { operations } from '../../server/src/http/operations.ts'
import type { Operation } from '../../server/src/routes/operation.ts'
import { EXAMPLE } from '../../server/src/routes/examples.ts'
import { insertAbTest, insertDecisions, insertEmailSend, insertMission } from '../fixtures.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { insertCampaign, insertContacts, insertList, insertSegment, insertWorkflow } from '../write-fixtures.ts'
import { type BadRequest, badRequestArbitrary } from './bad-requests.ts'

const RUNS = Number(process.env.FAULT_BAD_RUNS ?? 300)
const SEED = Number(process.env.FAULT_SEED ?? 20_261_123)
/** Requests per workspace before a fresh one: its token allows 600 an hour, its agent 1,200. */
const PER_WORKSPACE = 250

type Target = { ws: Workspace; real: Map<string, string>; used: number }
let current: Target | undefined

/**
 * A fresh workspace every PER_WORKSPACE requests, holding a real record for every id of the
 * examples (and the example's contact and workflow for trackEvent), so that a request whose fault
 * is elsewhere reaches past "404 not found" into the domain and the database.
 */
async function workspace(): Promise<Target> {
  if (!current || current.used >= PER_WORKSPACE) {
    const ws = await makeWorkspace()
    const mission = await insertMission(ws.id)
    const campaign = await insertCampaign(ws.id)
    const contacts = await insertContacts(ws.id, [{ email: 'olivia.bennett@gmail.com', tags: ['vip'] }])
    await insertWorkflow(ws.id, 'checkout.abandoned')
    const auth = await call('POST', '/api/v1/agent/authorize', { token: ws.agent.credential, body: { tool: 'ads', action: 'pause_campaign', summary: 'Bad-request setup' } })
    if (auth.status !== 201) throw new Error(`setup: authorize answered ${auth.status} ${auth.text}`)
    const real: Record<keyof typeof EXAMPLE, string> = {
      mission,
      decision: (await insertDecisions(ws.id, mission, 1))[0]!,
      abTest: await insertAbTest(ws.id, 'running'),
      emailSend: await insertEmailSend(ws.id, 'open'),
      campaign,
      list: await insertList(ws.id, contacts),
      segment: await insertSegment(ws.id, ['vip']),
      agent: ws.agent.id,
      authorization: auth.body.data.authorizationId,
    }
    current = { ws, real: new Map(Object.entries(EXAMPLE).map(([k, id]) => [id, real[k as keyof typeof EXAMPLE]])), used: 0 }
  }
  current.used++
  return current
}

/** The example's ids swapped for the workspace's real ones, wherever they are in the text. */
function withReal(text: string, real: Map<string, string>): string {
  let out = text
  for (const [example, id] of real) out = out.replaceAll(example, id)
  return out
}

const statuses: Record<string, Record<number, number>> = {}
let sent = 0
const startedAt = Date.now()

function describeRequest(op: Operation, r: BadRequest): string {
  const body = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : `bytes ${Buffer.from(r.body).toString('hex')}`
  return `${r.what}: ${r.method} /api/v1${op.path}${r.query.slice(0, 200)} headers ${JSON.stringify(r.headers).slice(0, 200)} body (${body.length} chars) ${body.slice(0, 200)}`
}

/** Why the answer breaks the envelope, or undefined. */
function judge(op: Operation, status: number, contentType: string | null, text: string, requestId: string | null): string | undefined {
  if (status >= 500) return `answered ${status}`
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return `answered ${status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`
  }
  if (!contentType?.startsWith('application/json')) return `answered ${status} with Content-Type ${contentType}`
  if (!requestId) return `answered ${status} without X-Request-Id`
  if (status >= 400) {
    const keys = Object.keys(body ?? {})
    const e = body?.error
    if (keys.join() !== 'error' || !e || Object.keys(e).sort().join() !== 'code,message,requestId') return `answered ${status} outside the error envelope: ${text.slice(0, 300)}`
    if (typeof e.message !== 'string' || !e.message) return `answered ${status} with an empty message`
    if (e.requestId !== requestId) return `error.requestId ${e.requestId} is not the X-Request-Id ${requestId}`
    const expected = STATUS_OF[e.code as keyof typeof STATUS_OF]
    // 405 (a method the path does not take) and 414 (a URL over 8 KiB, docs/operations.md) are the
    // statuses answered with `invalid_request` that are not its own 400.
    const ownStatus = expected === status || (e.code === 'invalid_request' && (status === 405 || status === 414))
    if (expected === undefined || !ownStatus) return `answered ${status} with code ${e.code}`
    return undefined
  }
  if (op.kind === 'item' && op.bare) return undefined
  if (!body || typeof body !== 'object' || !('data' in body)) return `answered ${status} without data: ${text.slice(0, 300)}`
  return undefined
}

async function sendBad(op: Operation, r: BadRequest): Promise<string | undefined> {
  const { url } = await getHarness()
  const { ws, real } = await workspace()
  const headers: Record<string, string> = { ...r.headers }
  const own = op.auth.kind === 'agent' ? ws.agent.credential : op.auth.kind === 'workspace' ? ws.live : undefined
  const other = op.auth.kind === 'agent' ? ws.live : ws.agent.credential
  const token = r.credential === 'own' ? own : r.credential === 'other' ? other : undefined
  if (token && !headers.Authorization) headers.Authorization = `Bearer ${token}`
  sent++
  let res: Response
  try {
    const body = typeof r.body === 'string' ? withReal(r.body, real) : r.body
    res = await fetch(`${url}/api/v1${op.path}${withReal(r.query, real)}`, { method: r.method, headers, body, signal: AbortSignal.timeout(20_000) })
  } catch (err) {
    return `no answer (${(err as Error).message})`
  }
  const text = await res.text()
  const counts = (statuses[op.operationId] ??= {})
  counts[res.status] = (counts[res.status] ?? 0) + 1
  return judge(op, res.status, res.headers.get('content-type'), text, res.headers.get('x-request-id'))
}

const hash = (s: string) => [...s].reduce((h, ch) => (Math.imul(h, 31) + ch.charCodeAt(0)) | 0, 7)

afterAll(() => {
  const table = Object.entries(statuses).map(([id, counts]) => `  ${id}: ${Object.entries(counts).map(([s, n]) => `${s}×${n}`).join(' ')}`)
  console.log(`bad requests: ${sent} sent in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (FAULT_SEED=${SEED}, FAULT_BAD_RUNS=${RUNS})\n${table.join('\n')}`)
})

describe('generated bad requests: never 5xx, always the envelope', () => {
  for (const op of operations) {
    test(`${op.operationId} (${op.method} /api/v1${op.path}): ${RUNS} bad requests`, async () => {
      const requests = fc.sample(badRequestArbitrary(op), { numRuns: RUNS, seed: (SEED ^ hash(op.operationId)) | 0 })
      const problems: string[] = []
      for (const r of requests) {
        const problem = await sendBad(op, r)
        if (problem) problems.push(`${problem}\n    sent: ${describeRequest(op, r)}`)
      }
      expect(requests.length).toBe(RUNS)
      expect(problems.slice(0, 10)).toEqual([])
    }, 120_000)
  }
})
