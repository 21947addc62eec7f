import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { Sql } from '../../server/src/store/driver/db.ts'
import * as store from '../../server/src/store/outcomes.ts'
import { insertMission } from '../fixtures.ts'
import { call, getHarness, makeWorkspace } from '../harness.ts'
import { outcomesFromRows } from '../support/outcomes-oracle.ts'

/**
 * GET /outcomes reads rollups that triggers keep on every write (migration 0009). These tests write
 * decisions, findings, A/B tests, sends and experiments in many shapes (inserts of several rows in
 * one statement, updates, deletes, experiments written before and after their subject) and check,
 * after each statement, that what the rollups answer is what the old aggregates over every row
 * answer (test/support/outcomes-oracle.ts), value for value, floats included; and that
 * rebuild_outcome_rollups recomputes the same rollups from the rows.
 */

const fromRollups = async (sql: Sql, ws: string) => {
  const [groups, turnedDown, counts] = await Promise.all([
    store.selectPredictionGroups(sql, ws),
    store.selectTurnedDown(sql, ws),
    store.selectOutcomeCounts(sql, ws),
  ])
  return {
    groups: { byAuthor: [...groups.byAuthor], byMeasure: [...groups.byMeasure], byConfidence: [...groups.byConfidence] },
    turnedDown: [...turnedDown],
    counts: { ...counts },
  }
}

async function expectRollupsMatchRows(sql: Sql, ws: string, after: string) {
  const [rollups, rows] = await Promise.all([fromRollups(sql, ws), outcomesFromRows(sql, ws)])
  if (!Bun.deepEquals(rollups, rows)) expect({ after, ...rollups }).toEqual({ after, ...rows })
}

/** The group rows as kept, sums compared as numbers (0.90 is 0.9), with no group left at zero. */
const groupRows = async (sql: Sql, ws: string) => [
  ...(await sql`
    SELECT 'prediction' AS rollup, dimension, key, kind, measured::int AS n, held::int AS held, trim_scale(confidence_sum)::text AS sum
    FROM prediction_rollups WHERE workspace_id = ${ws}
    UNION ALL
    SELECT 'turned down', NULL, reason, NULL, findings::int, NULL, NULL FROM turned_down_rollups WHERE workspace_id = ${ws}
    ORDER BY 1, 2, 3, 4`),
]

async function expectRebuildKeepsRollups(sql: Sql, ws: string) {
  const [groupsBefore, readBefore] = [await groupRows(sql, ws), await fromRollups(sql, ws)]
  expect(groupsBefore.filter((g) => g.n === 0)).toEqual([])
  await sql`SELECT rebuild_outcome_rollups(${ws})`
  expect(await groupRows(sql, ws)).toEqual(groupsBefore)
  expect(await fromRollups(sql, ws)).toEqual(readBefore)
  await expectRollupsMatchRows(sql, ws, 'rebuild')
}

describe('GET /outcomes rollups', () => {
  test('a decision becoming measured, a subject written after its experiment and then decided, deletes: each moves the answer', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const m = await insertMission(ws.id)
    const outcomes = async () => (await call('GET', '/api/v1/outcomes', { token: ws.live })).body.data
    const decision = (id: string, confidence: string) => ({
      workspace_id: ws.id, id, mission_id: m, author: 'Budget Pacer', author_kind: 'agent', title: 't', rationale: 'r',
      measure: 'roas', predicted_change: 5, confidence, status: 'recorded', held: null, created_at: new Date(),
    })
    await sql`INSERT INTO decisions ${sql([decision('dec_r1', '0.9'), decision('dec_r2', '0.35')])}`
    expect((await outcomes()).predictions).toMatchObject({ recorded: 2, measured: 0, byAuthor: [], authorCount: 0, calibration: [] })

    await sql`UPDATE decisions SET status = 'measured', held = true, actual_change = 6, measured_at = now() WHERE workspace_id = ${ws.id} AND id = 'dec_r1'`
    let o = await outcomes()
    expect(o.predictions).toMatchObject({ recorded: 2, measured: 1, held: 1, heldRate: 1, authorCount: 1, measureCount: 1 })
    expect(o.predictions.byAuthor).toEqual([{ author: { name: 'Budget Pacer', kind: 'agent' }, measured: 1, held: 1, heldRate: 1, statedConfidence: 0.9 }])
    await sql`UPDATE decisions SET status = 'measured', held = false WHERE workspace_id = ${ws.id} AND id = 'dec_r2'`
    o = await outcomes()
    expect(o.predictions.byAuthor[0]).toMatchObject({ measured: 2, held: 1, statedConfidence: 0.625 })
    expect(o.predictions.calibration.map((c: any) => c.confidenceFrom)).toEqual([0.3, 0.9])
    await expectRollupsMatchRows(sql, ws.id, 'measured')

    // The experiment is written before its A/B test: open; the test arrives running, then is decided.
    await sql`INSERT INTO experiments (workspace_id, id, hypothesis, kind, subject_id, expectation)
              VALUES (${ws.id}, 'exp_1', 'B wins', 'email_ab_test', 'abt_later', 'b_better')`
    expect((await outcomes()).tests.hypotheses).toEqual({ written: 1, decided: 0, held: 0, heldRate: null })
    await sql`INSERT INTO ab_tests (workspace_id, id, name, variant_a, variant_b, status) VALUES (${ws.id}, 'abt_later', 'n', 'a', 'b', 'running')`
    expect((await outcomes()).tests.hypotheses).toEqual({ written: 1, decided: 0, held: 0, heldRate: null })
    await sql`UPDATE ab_tests SET status = 'decided', winner = 'b', decided_at = now() WHERE workspace_id = ${ws.id} AND id = 'abt_later'`
    o = await outcomes()
    expect(o.tests.hypotheses).toEqual({ written: 1, decided: 1, held: 1, heldRate: 1 })
    expect(o.tests.abTests).toEqual({ running: 0, decided: 1, aWon: 0, bWon: 1, noDifference: 0 })
    await sql`UPDATE ab_tests SET winner = 'a' WHERE workspace_id = ${ws.id}`
    expect((await outcomes()).tests.hypotheses).toEqual({ written: 1, decided: 1, held: 0, heldRate: 0 })
    // As GET /experiments reads it.
    const listed = (await call('GET', '/api/v1/experiments', { token: ws.live })).body.data
    expect(listed.map((e: any) => [e.id, e.status, e.result?.observed, e.result?.held])).toEqual([['exp_1', 'decided', 'a_better', false]])
    await expectRollupsMatchRows(sql, ws.id, 'decided')

    // Deletes: the subject (its experiment is open again), a measured decision, the experiment.
    await sql`DELETE FROM ab_tests WHERE workspace_id = ${ws.id}`
    expect((await outcomes()).tests.hypotheses).toEqual({ written: 1, decided: 0, held: 0, heldRate: null })
    await sql`DELETE FROM decisions WHERE workspace_id = ${ws.id} AND id = 'dec_r1'`
    o = await outcomes()
    expect(o.predictions).toMatchObject({ recorded: 1, measured: 1, held: 0 })
    expect(o.predictions.calibration.map((c: any) => c.confidenceFrom)).toEqual([0.3])
    await sql`DELETE FROM experiments WHERE workspace_id = ${ws.id}`
    expect((await outcomes()).tests.hypotheses).toEqual({ written: 0, decided: 0, held: 0, heldRate: null })
    await expectRollupsMatchRows(sql, ws.id, 'deleted')
    await expectRebuildKeepsRollups(sql, ws.id)
  })

  test('the rollups equal the aggregates over the rows after any sequence of writes, and a rebuild gives them again', async () => {
    const { sql } = await getHarness()
    // A neighbour whose rollups no write of the other workspace may move.
    const other = await makeWorkspace()
    const otherMission = await insertMission(other.id)
    await sql`INSERT INTO decisions (workspace_id, id, mission_id, author, author_kind, title, rationale, measure, predicted_change, confidence, status, held, created_at)
              VALUES (${other.id}, 'dec_o', ${otherMission}, 'Budget Pacer', 'agent', 't', 'r', 'roas', 1, 0.5, 'measured', true, now())`
    await sql`INSERT INTO findings (workspace_id, id, title, status, rejection_reason) VALUES (${other.id}, 'fnd_o', 't', 'rejected', 'Sample too small')`
    const otherBefore = await fromRollups(sql, other.id)

    await fc.assert(
      fc.asyncProperty(fc.tuple(filling, fc.array(command, { minLength: 1, maxLength: 12 })), async ([fill, rest]) => {
        const commands = [...fill, ...rest]
        const ws = await makeWorkspace()
        const mission = await insertMission(ws.id)
        let serial = 0
        for (const c of commands) {
          await run(sql, ws.id, mission, c, () => ++serial)
          await expectRollupsMatchRows(sql, ws.id, JSON.stringify(c))
        }
        await expectRebuildKeepsRollups(sql, ws.id)
      }),
      { numRuns: Number(process.env.ROLLUP_RUNS ?? 100), seed: Number(process.env.ROLLUP_SEED ?? 20261123) },
    )
    expect(await fromRollups(sql, other.id)).toEqual(otherBefore)
    await expectRollupsMatchRows(sql, other.id, 'the other workspace')
  }, 300_000)
})

// Values chosen to collide: authors that differ by kind or case, reasons equal once NULL reads as
// 'No reason given', confidences on and between tenths (1.0 with the top tenth) and with many digits.
const AUTHORS = [['Budget Pacer', 'agent'], ['Maya Chen', 'person'], ['maya chen', 'person'], ['Maya Chen', 'agent']] as const
const MEASURES = ['roas', 'cpc', 'Repeat rate']
const CONFIDENCE = fc.oneof(
  fc.constantFrom('0', '0.05', '0.1', '0.10', '0.55', '0.9', '0.95', '1', '0.333333333333333333333333', '0.123456789'),
  fc.integer({ min: 0, max: 1000 }).map((n) => String(n / 1000)),
)
const REASONS = [null, 'No reason given', 'Sample too small', 'Seasonal effect']
const AB_IDS = ['abt_1', 'abt_2']
const SEND_IDS = ['ems_1', 'ems_2']
const LIFTS = [null, '-1.5', '0', '3.2', '0.333333333333333333333', '12']
const pick = { seed: fc.integer({ min: 0, max: 1_000_000 }), n: fc.integer({ min: 1, max: 4 }) }
const oneOrMore = <T>(a: fc.Arbitrary<T>) => fc.array(a, { minLength: 1, maxLength: 4 })

const decisionRow = fc.record({
  author: fc.nat(AUTHORS.length - 1), measure: fc.constantFrom(...MEASURES), confidence: CONFIDENCE,
  outcome: fc.constantFrom<boolean | null>(null, true, false),
})
const findingRow = fc.record({ status: fc.constantFrom('open', 'accepted', 'rejected'), reason: fc.constantFrom(...REASONS), age: fc.nat(5) })
const abRow = fc.record({ id: fc.constantFrom(...AB_IDS), status: fc.constantFrom('running', 'decided'), winner: fc.constantFrom(null, 'a', 'b', 'none') })
const sendRow = fc.record({ id: fc.constantFrom(...SEND_IDS), status: fc.constantFrom('open', 'decided'), lift: fc.constantFrom(...LIFTS) })
const experimentRow = fc.record({
  kind: fc.constantFrom('email_ab_test', 'email_holdout', 'sms_holdout'),
  subject: fc.constantFrom(...AB_IDS, ...SEND_IDS, 'missing'),
  expectation: fc.constantFrom('a_better', 'b_better', 'no_difference', 'send_adds'),
})

const command = fc.oneof(
  fc.record({ op: fc.constant('insert decisions' as const), rows: oneOrMore(decisionRow) }),
  fc.record({
    op: fc.constant('update decisions' as const), ...pick,
    set: fc.oneof(
      fc.record({ measured: fc.boolean() }),
      fc.constant({ recorded: true }),
      fc.record({ confidence: CONFIDENCE }),
      fc.record({ author: fc.nat(AUTHORS.length - 1) }),
      fc.record({ measure: fc.constantFrom(...MEASURES) }),
      fc.constant({ title: true }),
    ),
  }),
  fc.record({ op: fc.constant('delete decisions' as const), ...pick }),
  fc.record({ op: fc.constant('insert findings' as const), rows: oneOrMore(findingRow) }),
  fc.record({
    op: fc.constant('update findings' as const), ...pick,
    status: fc.constantFrom('open', 'accepted', 'rejected'), reason: fc.constantFrom(undefined, ...REASONS),
  }),
  fc.record({ op: fc.constant('delete findings' as const), ...pick }),
  fc.record({ op: fc.constant('insert ab_tests' as const), rows: oneOrMore(abRow) }),
  fc.record({ op: fc.constant('update ab_tests' as const), ...pick, status: fc.constantFrom('running', 'decided'), winner: fc.constantFrom(null, 'a', 'b', 'none') }),
  fc.record({ op: fc.constant('delete ab_tests' as const), ...pick }),
  fc.record({ op: fc.constant('insert email_sends' as const), rows: oneOrMore(sendRow) }),
  fc.record({ op: fc.constant('update email_sends' as const), ...pick, status: fc.constantFrom('open', 'decided'), lift: fc.constantFrom(...LIFTS) }),
  fc.record({ op: fc.constant('delete email_sends' as const), ...pick }),
  fc.record({ op: fc.constant('insert experiments' as const), rows: oneOrMore(experimentRow) }),
  fc.record({ op: fc.constant('update experiments' as const), ...pick, set: experimentRow }),
  fc.record({ op: fc.constant('delete experiments' as const), ...pick }),
)
/** Every table filled first, in any order (experiments before or after their subjects), then any writes. */
const filling = fc
  .tuple(
    fc.record({ op: fc.constant('insert decisions' as const), rows: fc.array(decisionRow, { minLength: 1, maxLength: 8 }) }),
    fc.record({ op: fc.constant('insert findings' as const), rows: fc.array(findingRow, { minLength: 1, maxLength: 8 }) }),
    fc.record({ op: fc.constant('insert ab_tests' as const), rows: oneOrMore(abRow) }),
    fc.record({ op: fc.constant('insert email_sends' as const), rows: oneOrMore(sendRow) }),
    fc.record({ op: fc.constant('insert experiments' as const), rows: fc.array(experimentRow, { minLength: 1, maxLength: 8 }) }),
  )
  .chain((all) => fc.shuffledSubarray<(typeof all)[number]>([...all], { minLength: all.length }))
type Command = typeof command extends fc.Arbitrary<infer T> ? T : never

/** One statement of the command against the workspace. */
async function run(sql: Sql, ws: string, mission: string, c: Command, next: () => number) {
  const table = c.op.split(' ')[1]!
  // `n` rows of the table, a different choice for each seed.
  const chosen = 'seed' in c
    ? sql`id IN (SELECT id FROM ${sql(table)} WHERE workspace_id = ${ws} ORDER BY md5(id || ${String(c.seed)}) LIMIT ${c.n})`
    : sql``
  const now = Date.now()
  switch (c.op) {
    case 'insert decisions':
      await sql`INSERT INTO decisions ${sql(c.rows.map((r) => ({
        workspace_id: ws, id: `dec_${next()}`, mission_id: mission, author: AUTHORS[r.author]![0], author_kind: AUTHORS[r.author]![1],
        title: 't', rationale: 'r', measure: r.measure, predicted_change: 5, confidence: r.confidence,
        status: r.outcome === null ? 'recorded' : 'measured', held: r.outcome, created_at: new Date(now),
      })))}`
      return
    case 'update decisions': {
      const s = c.set
      if ('measured' in s) await sql`UPDATE decisions SET status = 'measured', held = ${s.measured} WHERE workspace_id = ${ws} AND ${chosen}`
      else if ('recorded' in s) await sql`UPDATE decisions SET status = 'recorded', held = NULL WHERE workspace_id = ${ws} AND ${chosen}`
      else if ('confidence' in s) await sql`UPDATE decisions SET confidence = ${s.confidence} WHERE workspace_id = ${ws} AND ${chosen}`
      else if ('author' in s) await sql`UPDATE decisions SET author = ${AUTHORS[s.author]![0]}, author_kind = ${AUTHORS[s.author]![1]} WHERE workspace_id = ${ws} AND ${chosen}`
      else if ('measure' in s) await sql`UPDATE decisions SET measure = ${s.measure} WHERE workspace_id = ${ws} AND ${chosen}`
      else await sql`UPDATE decisions SET title = title || '!' WHERE workspace_id = ${ws} AND ${chosen}`
      return
    }
    case 'insert findings':
      await sql`INSERT INTO findings ${sql(c.rows.map((r) => ({
        workspace_id: ws, id: `fnd_${next()}`, title: 't', status: r.status, rejection_reason: r.reason, created_at: new Date(now - r.age * 1000),
      })))}`
      return
    case 'update findings':
      if (c.reason === undefined) await sql`UPDATE findings SET status = ${c.status} WHERE workspace_id = ${ws} AND ${chosen}`
      else await sql`UPDATE findings SET status = ${c.status}, rejection_reason = ${c.reason} WHERE workspace_id = ${ws} AND ${chosen}`
      return
    case 'insert ab_tests':
      await sql`INSERT INTO ab_tests ${sql(c.rows.map((r) => ({
        workspace_id: ws, id: r.id, name: 'n', variant_a: 'a', variant_b: 'b', status: r.status, winner: r.winner,
      })))} ON CONFLICT DO NOTHING`
      return
    case 'update ab_tests':
      await sql`UPDATE ab_tests SET status = ${c.status}, winner = ${c.winner} WHERE workspace_id = ${ws} AND ${chosen}`
      return
    case 'insert email_sends':
      await sql`INSERT INTO email_sends ${sql(c.rows.map((r) => ({
        workspace_id: ws, id: r.id, subject: 's', holdout_status: r.status, holdout_lift: r.lift,
      })))} ON CONFLICT DO NOTHING`
      return
    case 'update email_sends':
      await sql`UPDATE email_sends SET holdout_status = ${c.status}, holdout_lift = ${c.lift} WHERE workspace_id = ${ws} AND ${chosen}`
      return
    case 'insert experiments':
      await sql`INSERT INTO experiments ${sql(c.rows.map((r) => ({
        workspace_id: ws, id: `exp_${next()}`, hypothesis: 'h', kind: r.kind, subject_id: r.subject, expectation: r.expectation,
      })))}`
      return
    case 'update experiments':
      await sql`UPDATE experiments SET kind = ${c.set.kind}, subject_id = ${c.set.subject}, expectation = ${c.set.expectation}
                WHERE workspace_id = ${ws} AND ${chosen}`
      return
    default:
      await sql`DELETE FROM ${sql(table)} WHERE workspace_id = ${ws} AND ${chosen}`
  }
}
