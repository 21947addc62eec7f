import { describe, expect, test } from 'bun:test'
import { insertAbTest, insertEmailSend, insertMission } from '../fixtures.ts'
import { newId } from '../../server/src/core/ids.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { daysAgo, insertRows } from '../rows.ts'

const ids = (r: { body: any }) => r.body.data.map((x: any) => x.id)

describe('GET /signals', () => {
  test('open by default, newest first, each with the opportunity it speaks for', async () => {
    const ws = await makeWorkspace()
    const [opp] = await insertRows('opportunities', 'opportunity', ws.id, [{ title: 'Win back lapsed buyers', detail: 'd', status: 'open', worth: 50 }])
    const [older, newer, resolved, dismissed] = await insertRows('signals', 'signal', ws.id, [
      { kind: 'stock_low', title: 'Older', detail: 'd', status: 'open', opportunity_id: opp, created_at: daysAgo(2) },
      { kind: 'cpc_spike', title: 'Newer', detail: 'd', status: 'open', opportunity_id: null, created_at: daysAgo(1) },
      { kind: 'x', title: 'Resolved', detail: 'd', status: 'resolved', resolved_at: daysAgo(0.5), created_at: daysAgo(3) },
      { kind: 'x', title: 'Dismissed', detail: 'd', status: 'dismissed', created_at: daysAgo(3) },
    ])
    const r = await call('GET', '/api/v1/signals', { token: ws.live })
    expect(r.status).toBe(200)
    expect(ids(r)).toEqual([newer, older])
    expect(r.body.meta).toBeUndefined()
    expect(r.body.data[1]).toEqual({
      id: older, kind: 'stock_low', title: 'Older', detail: 'd', status: 'open',
      opportunity: { id: opp, title: 'Win back lapsed buyers', status: 'open' }, resolvedAt: null, createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    })
    expect(r.body.data[0].opportunity).toBeNull()
    expect(ids(await call('GET', '/api/v1/signals?status=resolved', { token: ws.live }))).toEqual([resolved])
    expect(ids(await call('GET', '/api/v1/signals?status=dismissed', { token: ws.live }))).toEqual([dismissed])
    const res = await call('GET', '/api/v1/signals?status=resolved', { token: ws.live })
    expect(res.body.data[0].resolvedAt).toMatch(/Z$/)
  })

  test('a status outside the list is 400 invalid_parameter naming status and the values', async () => {
    const ws = await makeWorkspace()
    expectError(await call('GET', '/api/v1/signals?status=closed', { token: ws.live }), 400, 'invalid_parameter', 'status must be one of: open, resolved, dismissed')
    expectError(await call('GET', '/api/v1/signals?limit=501', { token: ws.live }), 400, 'invalid_parameter', 'limit')
  })
})

describe('GET /opportunities', () => {
  test('in the order they are worth doing, ties broken stably by id; open by default', async () => {
    const ws = await makeWorkspace()
    const [low, tieB, high, tieA] = await insertRows('opportunities', 'opportunity', ws.id, [
      { title: 'Low', detail: 'd', status: 'open', worth: 10 },
      { title: 'Tie B', detail: 'd', status: 'open', worth: 40 },
      { title: 'High', detail: 'd', status: 'open', worth: 90.5 },
      { title: 'Tie A', detail: 'd', status: 'open', worth: 40 },
    ])
    await insertRows('opportunities', 'opportunity', ws.id, [{ title: 'Done', detail: 'd', status: 'actioned', worth: 99 }])
    const ties = [tieA!, tieB!].sort()
    const r = await call('GET', '/api/v1/opportunities', { token: ws.live })
    expect(ids(r)).toEqual([high, ...ties, low])
    expect(r.body.data[0].worth).toBe(90.5)
    // Stable: the same order on every call.
    expect(ids(await call('GET', '/api/v1/opportunities', { token: ws.live }))).toEqual(ids(r))
    // One a page, through the cursors: the same order, each tie once (the cursor's bound on worth is
    // inclusive, the id breaks the tie).
    const walked: string[] = []
    let cursor: string | undefined
    do {
      const page = await call('GET', `/api/v1/opportunities?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: ws.live })
      expect(page.status).toBe(200)
      walked.push(...ids(page))
      cursor = page.body.meta?.nextCursor
    } while (cursor && walked.length < 10)
    expect(walked).toEqual([high, ...ties, low])
  })

  test('measured impact per currency where there is one; an open one past its expiry is listed as expired', async () => {
    const ws = await makeWorkspace()
    const [actioned] = await insertRows('opportunities', 'opportunity', ws.id, [
      {
        title: 'Recover checkouts', detail: 'd', status: 'actioned', worth: 80,
        estimated_impact: [{ amountMinor: 310_000, currency: 'USD' }, { amountMinor: 92_000, currency: 'EUR' }],
        measured_impact: [{ currency: 'USD', amountMinor: 284_200 }, { currency: 'JPY', amountMinor: 365_000 }, { currency: 'EUR', amountMinor: 71_500 }],
      },
    ])
    const [lapsed, current] = await insertRows('opportunities', 'opportunity', ws.id, [
      { title: 'Lapsed', detail: 'd', status: 'open', worth: 70, expires_at: daysAgo(1) },
      { title: 'Current', detail: 'd', status: 'open', worth: 60, expires_at: daysAgo(-5) },
    ])
    const [old] = await insertRows('opportunities', 'opportunity', ws.id, [{ title: 'Old', detail: 'd', status: 'expired', worth: 20 }])
    const a = (await call('GET', '/api/v1/opportunities?status=actioned', { token: ws.live })).body.data[0]
    expect(a.id).toBe(actioned)
    expect(a.estimatedImpact).toEqual([{ amountMinor: 92_000, currency: 'EUR' }, { amountMinor: 310_000, currency: 'USD' }])
    expect(a.measuredImpact).toEqual([
      { amountMinor: 71_500, currency: 'EUR' }, { amountMinor: 365_000, currency: 'JPY' }, { amountMinor: 284_200, currency: 'USD' },
    ])
    expect(ids(await call('GET', '/api/v1/opportunities', { token: ws.live }))).toEqual([current])
    const expired = await call('GET', '/api/v1/opportunities?status=expired', { token: ws.live })
    expect(ids(expired)).toEqual([lapsed, old])
    expect(expired.body.data.map((o: any) => o.status)).toEqual(['expired', 'expired'])
    expect((await call('GET', `/api/v1/opportunities?status=open`, { token: ws.live })).body.data[0].measuredImpact).toBeNull()
  })

  test('each shows how many signals speak for it, however the signals come and go', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const early = newId('opportunity')
    // A signal may name an opportunity before it is written.
    const [s1] = await insertRows('signals', 'signal', ws.id, [{ kind: 'k', title: 'Early', detail: 'd', status: 'open', opportunity_id: early }])
    await insertRows('opportunities', null, ws.id, [{ id: early, title: 'Early', detail: 'd', status: 'open', worth: 50 }])
    const [late] = await insertRows('opportunities', 'opportunity', ws.id, [{ title: 'Late', detail: 'd', status: 'open', worth: 10 }])
    const [s2, s3] = await insertRows('signals', 'signal', ws.id, [
      { kind: 'k', title: 'Two', detail: 'd', status: 'open', opportunity_id: late },
      { kind: 'k', title: 'Three', detail: 'd', status: 'resolved', opportunity_id: late },
    ])
    await insertRows('signals', 'signal', ws.id, [{ kind: 'k', title: 'Alone', detail: 'd', status: 'open', opportunity_id: null }])
    const counts = async () => (await call('GET', '/api/v1/opportunities', { token: ws.live })).body.data.map((o: any) => [o.id, o.signals])
    expect(await counts()).toEqual([[early, 1], [late, 2]])
    await sql`UPDATE signals SET opportunity_id = ${early} WHERE workspace_id = ${ws.id} AND id = ${s2!}`
    await sql`UPDATE signals SET status = 'dismissed' WHERE workspace_id = ${ws.id}`
    expect(await counts()).toEqual([[early, 2], [late, 1]])
    await sql`DELETE FROM signals WHERE workspace_id = ${ws.id} AND id IN (${s1!}, ${s3!})`
    expect(await counts()).toEqual([[early, 1], [late, 0]])
    const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM signals WHERE workspace_id = ${ws.id} AND opportunity_id = ${early}`
    expect(row!.n).toBe(1)
  })
})

describe('GET /outcomes', () => {
  test('aggregates how predictions held by author, measure and stated confidence; why findings were turned down; what tests showed', async () => {
    const ws = await makeWorkspace()
    const m = await insertMission(ws.id)
    const d = (author: string, kind: string, measure: string, confidence: number, held: boolean | null) => ({
      mission_id: m, author, author_kind: kind, title: 't', rationale: 'r', measure, predicted_change: 5, confidence,
      status: held === null ? 'recorded' : 'measured', actual_change: held === null ? null : 1, held, measured_at: held === null ? null : new Date(),
    })
    await insertRows('decisions', 'decision', ws.id, [
      d('Budget Pacer', 'agent', 'roas', 0.9, true), d('Budget Pacer', 'agent', 'roas', 0.9, false), d('Budget Pacer', 'agent', 'cpc', 0.55, false),
      d('Maya Chen', 'person', 'roas', 0.6, true), d('Maya Chen', 'person', 'roas', 0.7, null),
    ])
    await insertRows('findings', 'finding', ws.id, [
      { title: 'A', status: 'rejected', rejection_reason: 'Sample too small' },
      { title: 'B', status: 'rejected', rejection_reason: 'Sample too small' },
      { title: 'C', status: 'rejected', rejection_reason: 'Seasonal effect' },
      { title: 'D', status: 'accepted' },
      { title: 'E', status: 'open' },
    ])
    const decidedTest = await insertAbTest(ws.id, 'decided') // winner b
    await insertAbTest(ws.id, 'running')
    const decidedSend = await insertEmailSend(ws.id, 'decided') // lift 3.2
    await insertRows('experiments', 'experiment', ws.id, [
      { hypothesis: 'B wins on price', kind: 'email_ab_test', subject_id: decidedTest, expectation: 'b_better' },
      { hypothesis: 'The send adds nothing', kind: 'email_holdout', subject_id: decidedSend, expectation: 'no_difference' },
    ])
    const r = await call('GET', '/api/v1/outcomes', { token: ws.live })
    expect(r.status).toBe(200)
    const o = r.body.data
    expect(o.predictions).toMatchObject({ recorded: 5, measured: 4, held: 2, heldRate: 0.5 })
    expect(o.predictions.byAuthor).toEqual([
      { author: { name: 'Budget Pacer', kind: 'agent' }, measured: 3, held: 1, heldRate: 0.333, statedConfidence: 0.783 },
      { author: { name: 'Maya Chen', kind: 'person' }, measured: 1, held: 1, heldRate: 1, statedConfidence: 0.6 },
    ])
    expect(o.predictions.byMeasure).toEqual([
      { measure: 'roas', measured: 3, held: 2, heldRate: 0.667, statedConfidence: 0.8 },
      { measure: 'cpc', measured: 1, held: 0, heldRate: 0, statedConfidence: 0.55 },
    ])
    expect(o.predictions.calibration).toEqual([
      { confidenceFrom: 0.5, confidenceTo: 0.6, statedConfidence: 0.55, measured: 1, held: 0, heldRate: 0 },
      { confidenceFrom: 0.6, confidenceTo: 0.7, statedConfidence: 0.6, measured: 1, held: 1, heldRate: 1 },
      { confidenceFrom: 0.9, confidenceTo: 1, statedConfidence: 0.9, measured: 2, held: 1, heldRate: 0.5 },
    ])
    expect(o.findings.open).toBe(1)
    expect(o.findings.accepted).toBe(1)
    expect(o.findings.rejected).toBe(3)
    expect(o.findings.turnedDown.map((t: any) => [t.reason, t.count, t.findings.map((f: any) => f.title).sort()])).toEqual([
      ['Sample too small', 2, ['A', 'B']],
      ['Seasonal effect', 1, ['C']],
    ])
    expect(o.tests).toEqual({
      abTests: { running: 1, decided: 1, aWon: 0, bWon: 1, noDifference: 0 },
      holdouts: { decided: 1, sendAdded: 1, meanLiftPercent: 3.2 },
      hypotheses: { written: 2, decided: 2, held: 1, heldRate: 0.5 },
    })
    // Aggregates only: no decision ids leak into the answer.
    expect(r.text).not.toContain('dec_')
  })

  test('a stated certainty of 1.0 is calibrated with the top tenth, [0.9, 1.0]; an experiment still open is written, not decided', async () => {
    const ws = await makeWorkspace()
    const m = await insertMission(ws.id)
    const d = (confidence: number, held: boolean) => ({
      mission_id: m, author: 'Budget Pacer', author_kind: 'agent', title: 't', rationale: 'r', measure: 'roas', predicted_change: 5, confidence,
      status: 'measured', actual_change: 1, held, measured_at: new Date(),
    })
    await insertRows('decisions', 'decision', ws.id, [d(1, false), d(0.95, true), d(0.05, true)])
    const running = await insertAbTest(ws.id, 'running')
    const decidedSend = await insertEmailSend(ws.id, 'decided') // lift 3.2
    await insertRows('experiments', 'experiment', ws.id, [
      { hypothesis: 'A wins', kind: 'email_ab_test', subject_id: running, expectation: 'a_better' },
      { hypothesis: 'The send adds revenue', kind: 'email_holdout', subject_id: decidedSend, expectation: 'send_adds' },
    ])
    const o = (await call('GET', '/api/v1/outcomes', { token: ws.live })).body.data
    expect(o.predictions.calibration).toEqual([
      { confidenceFrom: 0, confidenceTo: 0.1, statedConfidence: 0.05, measured: 1, held: 1, heldRate: 1 },
      { confidenceFrom: 0.9, confidenceTo: 1, statedConfidence: 0.975, measured: 2, held: 1, heldRate: 0.5 },
    ])
    expect(o.tests.hypotheses).toEqual({ written: 2, decided: 1, held: 1, heldRate: 1 })
  })

  test('an empty workspace answers zeros and null rates, not an error', async () => {
    const ws = await makeWorkspace()
    const o = (await call('GET', '/api/v1/outcomes', { token: ws.live })).body.data
    expect(o.predictions).toEqual({ recorded: 0, measured: 0, held: 0, heldRate: null, byAuthor: [], authorCount: 0, byMeasure: [], measureCount: 0, calibration: [] })
    expect(o.tests.holdouts.meanLiftPercent).toBeNull()
  })
})

describe('GET /approvals', () => {
  test('every status when omitted, newest first; a status filter; limit and signed cursors', async () => {
    const ws = await makeWorkspace()
    const base = { kind: 'send', summary: 'Send "Spring origins" to 16,900 contacts', requested_by: 'Lifecycle Writer' }
    const made = await insertRows('approvals', 'approval', ws.id, [
      { ...base, status: 'pending', expires_at: daysAgo(-1), created_at: daysAgo(0.1) },
      { ...base, status: 'approved', decided_by: { kind: 'operator', name: 'mchen' }, decided_at: daysAgo(0.5), created_at: daysAgo(1) },
      { ...base, status: 'rejected', decided_by: { kind: 'operator', name: 'mchen', note: 'for Kenji' }, decision_reason: 'Wrong list', decided_at: daysAgo(1.5), created_at: daysAgo(2) },
      { ...base, kind: 'agent_request', status: 'pending', expires_at: daysAgo(0.5), created_at: daysAgo(3) },
    ])
    const all = await call('GET', '/api/v1/approvals', { token: ws.live })
    expect(ids(all)).toEqual(made)
    expect(all.body.data[0]).toMatchObject({ kind: 'send', status: 'pending', expired: false, decidedBy: null, decisionReason: null, summary: base.summary })
    expect(all.body.data[2]).toMatchObject({ decidedBy: { kind: 'operator', name: 'mchen', note: 'for Kenji' }, decisionReason: 'Wrong list' })
    expect(all.body.data[3]).toMatchObject({ kind: 'agent_request', status: 'pending', expired: true })
    expect(ids(await call('GET', '/api/v1/approvals?status=pending', { token: ws.live }))).toEqual([made[0], made[3]])
    expect(ids(await call('GET', '/api/v1/approvals?status=rejected', { token: ws.live }))).toEqual([made[2]])

    const p1 = await call('GET', '/api/v1/approvals?limit=3', { token: ws.live })
    expect(ids(p1)).toEqual(made.slice(0, 3))
    const p2 = await call('GET', `/api/v1/approvals?limit=3&cursor=${encodeURIComponent(p1.body.meta.nextCursor)}`, { token: ws.live })
    expect(ids(p2)).toEqual([made[3]])
    expect(p2.body.meta).toBeUndefined()
    // A cursor is bound to its filter.
    expectError(await call('GET', `/api/v1/approvals?status=pending&cursor=${encodeURIComponent(p1.body.meta.nextCursor)}`, { token: ws.live }), 400, 'invalid_parameter', 'cursor')
  })

  test('limit is 1..100 and status one of the three', async () => {
    const ws = await makeWorkspace()
    expectError(await call('GET', '/api/v1/approvals?limit=0', { token: ws.live }), 400, 'invalid_parameter', 'limit')
    expectError(await call('GET', '/api/v1/approvals?limit=101', { token: ws.live }), 400, 'invalid_parameter', 'limit')
    expectError(await call('GET', '/api/v1/approvals?status=expired', { token: ws.live }), 400, 'invalid_parameter', 'status')
    expect((await call('GET', '/api/v1/approvals?limit=100', { token: ws.live })).status).toBe(200)
  })
})
