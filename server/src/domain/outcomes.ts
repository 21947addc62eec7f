import type { Sql } from '../core/db.ts'
import { iso } from '../core/time.ts'
import type { Outcomes } from '../schemas/outcomes.ts'
import * as store from '../store/outcomes.ts'

const rate = (held: number, measured: number) => (measured === 0 ? null : Math.round((held / measured) * 1000) / 1000)
const round3 = (x: number) => Math.round(x * 1000) / 1000

/** The aggregates of GET /outcomes: no single record, only how things held up; every section bounded. */
export async function getOutcomes(sql: Sql, workspaceId: string): Promise<Outcomes> {
  const [p, turnedDown, findingCounts, tests] = await Promise.all([
    store.selectPredictionGroups(sql, workspaceId),
    store.selectTurnedDown(sql, workspaceId),
    store.selectFindingCounts(sql, workspaceId),
    store.selectTestResults(sql, workspaceId),
  ])
  const group = (g: store.PredictionGroupRow) => ({ measured: g.measured, held: g.held, heldRate: rate(g.held, g.measured), statedConfidence: round3(g.confidence) })
  return {
    predictions: {
      recorded: p.totals.recorded,
      measured: p.totals.measured,
      held: p.totals.held,
      heldRate: rate(p.totals.held, p.totals.measured),
      byAuthor: p.byAuthor.map((g) => ({ author: { name: g.key, kind: g.kind ?? 'person' }, ...group(g) })),
      authorCount: p.byAuthor[0]?.groups ?? 0,
      byMeasure: p.byMeasure.map((g) => ({ measure: g.key, ...group(g) })),
      measureCount: p.byMeasure[0]?.groups ?? 0,
      calibration: p.byConfidence.map((g) => {
        const from = Number(g.key)
        return { confidenceFrom: from, confidenceTo: round3(from + 0.1), ...group(g) }
      }),
    },
    findings: {
      ...findingCounts,
      turnedDown: turnedDown.map((r) => ({
        reason: r.reason,
        count: r.count,
        findings: r.findings.map((f) => ({ id: f.id, title: f.title, createdAt: iso(f.createdAt) })),
      })),
      reasonCount: turnedDown[0]?.reasons ?? 0,
    },
    tests: {
      abTests: { running: tests.ab.running, decided: tests.ab.decided, aWon: tests.ab.a, bWon: tests.ab.b, noDifference: tests.ab.none },
      holdouts: {
        decided: tests.holdout.decided,
        sendAdded: tests.holdout.adds,
        meanLiftPercent: tests.holdout.lift === null ? null : Math.round(tests.holdout.lift * 100) / 100,
      },
      hypotheses: { ...tests.hypotheses, heldRate: rate(tests.hypotheses.held, tests.hypotheses.decided) },
    },
  }
}
