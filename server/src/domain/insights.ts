import type { z } from 'zod'
import type { Approval, Opportunity, Outcomes, Signal } from '../schemas/insights.ts'
import { iso, isoOrNull } from '../schemas/common.ts'
import type { Sql } from '../store/db.ts'
import * as approvalsStore from '../store/approvals.ts'
import type { Position } from '../store/growth.ts'
import * as store from '../store/insights.ts'
import { newestFirstPosition } from './growth.ts'
import { byCurrency, type Money } from './money.ts'

const moneyList = (xs: Money[]) => byCurrency(xs.map((m) => ({ amountMinor: m.amountMinor, currency: m.currency })))

type SignalT = z.infer<typeof Signal>
type OpportunityT = z.infer<typeof Opportunity>
type OutcomesT = z.infer<typeof Outcomes>
type ApprovalT = z.infer<typeof Approval>

export async function listSignals(sql: Sql, workspaceId: string, status: string, now = new Date()): Promise<SignalT[]> {
  const rows = await store.selectSignals(sql, workspaceId, status, now)
  return rows.map((s) => ({
    id: s.id,
    kind: s.kind,
    title: s.title,
    detail: s.detail,
    status: s.status,
    opportunity: s.opportunity as SignalT['opportunity'],
    resolvedAt: isoOrNull(s.resolved_at),
    createdAt: iso(s.created_at),
  }))
}

export async function listOpportunities(sql: Sql, workspaceId: string, status: string, now = new Date()): Promise<OpportunityT[]> {
  const rows = await store.selectOpportunities(sql, workspaceId, status, now)
  return rows.map((o) => ({
    id: o.id,
    title: o.title,
    detail: o.detail,
    status: o.status,
    worth: o.worth,
    estimatedImpact: moneyList(o.estimated_impact),
    measuredImpact: o.measured_impact ? moneyList(o.measured_impact) : null,
    signals: o.signals,
    expiresAt: isoOrNull(o.expires_at),
    createdAt: iso(o.created_at),
  }))
}

const rate = (held: number, measured: number) => (measured === 0 ? null : Math.round((held / measured) * 1000) / 1000)
const round3 = (x: number) => Math.round(x * 1000) / 1000

/** The aggregates of GET /outcomes: no single record, only how things held up. */
export async function outcomes(sql: Sql, workspaceId: string): Promise<OutcomesT> {
  const [p, rejected, findingCounts, tests] = await Promise.all([
    store.selectPredictionGroups(sql, workspaceId),
    store.selectRejectedFindings(sql, workspaceId),
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
      byAuthor: p.byAuthor.map((g) => ({ author: { name: g.key, kind: g.kind as 'agent' | 'person' }, ...group(g) })),
      byMeasure: p.byMeasure.map((g) => ({ measure: g.key, ...group(g) })),
      calibration: p.byConfidence.map((g) => {
        const from = Number(g.key)
        return { confidenceFrom: from, confidenceTo: round3(from + 0.1), ...group(g) }
      }),
    },
    findings: {
      ...findingCounts,
      turnedDown: rejected.map((r) => ({
        reason: r.reason,
        count: r.findings.length,
        findings: r.findings.map((f) => ({ id: f.id, title: f.title, createdAt: iso(f.createdAt) })),
      })),
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

export function toApproval(a: approvalsStore.ApprovalRow, now = new Date()): ApprovalT {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    summary: a.summary,
    subjectId: a.subject_id,
    requestedBy: a.requested_by,
    decidedBy: a.decided_by,
    decidedAt: isoOrNull(a.decided_at),
    expiresAt: isoOrNull(a.expires_at),
    expired: a.status === 'pending' && a.expires_at !== null && a.expires_at.getTime() <= now.getTime(),
    usedAt: isoOrNull(a.used_at),
    createdAt: iso(a.created_at),
  }
}

export const approvalsPage = (sql: Sql, workspaceId: string, opts: { status?: string; after?: Position; limit: number }) =>
  approvalsStore.selectApprovals(sql, workspaceId, { status: opts.status, before: opts.after, limit: opts.limit })

export const approvalPosition = newestFirstPosition
