import type { Sql } from '../core/db.ts'
import { iso } from '../core/time.ts'
import type { Outcomes } from '../schemas/outcomes.ts'
import * as store from '../store/outcomes.ts'

const rate = (held: number, measured: number) => (measured === 0 ? null : Math.round((held / measured) * 1000) / 1000)
const round3 = (x: number) => Math.round(x * 1000) / 1000

/** The aggregates of GET /outcomes: no single record, only how things held up; every section bounded. */
export async function getOutcomes(sql: Sql, workspaceId: string): Promise<Outcomes> {
  const [p, turnedDown, c] = await Promise.all([
    store.selectPredictionGroups(sql, workspaceId),
    store.selectTurnedDown(sql, workspaceId),
    store.selectOutcomeCounts(sql, workspaceId),
  ])
  const group = (g: store.PredictionGroupRow) => ({ measured: g.measured, held: g.held, heldRate: rate(g.held, g.measured), statedConfidence: round3(g.confidence) })
  return {
    predictions: {
      recorded: c.decisions_recorded,
      measured: c.decisions_measured,
      held: c.decisions_held,
      heldRate: rate(c.decisions_held, c.decisions_measured),
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
      open: c.findings_open,
      accepted: c.findings_accepted,
      rejected: c.findings_rejected,
      turnedDown: turnedDown.map((r) => ({
        reason: r.reason,
        count: r.count,
        findings: r.findings.map((f) => ({ id: f.id, title: f.title, createdAt: iso(f.createdAt) })),
      })),
      reasonCount: turnedDown[0]?.reasons ?? 0,
    },
    tests: {
      abTests: { running: c.ab_running, decided: c.ab_decided, aWon: c.ab_a, bWon: c.ab_b, noDifference: c.ab_none },
      holdouts: {
        decided: c.holdouts_decided,
        sendAdded: c.holdouts_adding,
        meanLiftPercent: c.holdout_lift === null ? null : Math.round(c.holdout_lift * 100) / 100,
      },
      hypotheses: {
        written: c.hypotheses_written,
        decided: c.hypotheses_decided,
        held: c.hypotheses_held,
        heldRate: rate(c.hypotheses_held, c.hypotheses_decided),
      },
    },
  }
}
