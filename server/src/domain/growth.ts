import { conflict, invalidRequest, notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import type { CreateExperimentInput, DecisionT, ExperimentT, MissionT } from '../schemas/growth.ts'
import { iso, isoOrNull } from '../schemas/common.ts'
import type { Sql, Tx } from '../store/db.ts'
import { appendEvent } from '../store/events.ts'
import * as store from '../store/growth.ts'

export async function listMissions(sql: Sql, workspaceId: string): Promise<MissionT[]> {
  const rows = await store.selectMissions(sql, workspaceId)
  return rows.map((m) => ({
    id: m.id,
    name: m.name,
    objective: m.objective,
    status: m.status as MissionT['status'],
    metric: {
      name: m.metric_name,
      unit: m.metric_unit,
      baseline: m.baseline_value,
      current: m.current_value,
      target: m.target_value,
      measuredAt: isoOrNull(m.measured_at),
    },
    progress: progress(m.baseline_value, m.current_value, m.target_value),
    automations: m.automations as MissionT['automations'],
    startedAt: iso(m.started_at),
    dueAt: isoOrNull(m.due_at),
    createdAt: iso(m.created_at),
  }))
}

/** Share of the way from baseline to target, clamped to 0..1 (a target below baseline works too). */
export function progress(baseline: number, current: number, target: number): number {
  if (target === baseline) return current === target ? 1 : 0
  const p = (current - baseline) / (target - baseline)
  return Math.round(Math.min(1, Math.max(0, p)) * 1000) / 1000
}

export function toDecision(d: store.DecisionRow): DecisionT {
  return {
    id: d.id,
    missionId: d.mission_id,
    author: { name: d.author, kind: d.author_kind },
    title: d.title,
    rationale: d.rationale,
    prediction: { measure: d.measure, change: d.predicted_change, confidence: d.confidence },
    status: d.status,
    outcome:
      d.status === 'measured' && d.actual_change !== null
        ? { change: d.actual_change, held: Boolean(d.held), measuredAt: iso(d.measured_at!) }
        : null,
    createdAt: iso(d.created_at),
  }
}

/** Decisions newest first; an unknown missionId is 404 rather than a silently empty list. */
export async function decisionsPage(
  sql: Sql,
  workspaceId: string,
  opts: { missionId?: string; after?: store.Position; limit: number },
) {
  if (opts.missionId && !(await store.missionExists(sql, workspaceId, opts.missionId))) {
    throw notFound('mission', opts.missionId)
  }
  return store.selectDecisions(sql, workspaceId, { missionId: opts.missionId, before: opts.after, limit: opts.limit })
}

/** Where a newest-first list (created_at DESC, id DESC) left off: its last row's time and id. */
export const newestFirstPosition = (row: { created_at: Date; id: string }): store.Position => ({ t: iso(row.created_at), id: row.id })

export const decisionPosition = newestFirstPosition

function toExperiment(e: store.ExperimentRow): ExperimentT {
  return {
    id: e.id,
    hypothesis: e.hypothesis,
    kind: e.kind as ExperimentT['kind'],
    subjectId: e.subject_id,
    expectation: e.expectation as ExperimentT['expectation'],
    decisionId: e.decision_id,
    status: e.subject_status,
    result:
      e.subject_status === 'decided' && e.observed
        ? { observed: e.observed as ExperimentT['expectation'], held: e.observed === e.expectation, decidedAt: isoOrNull(e.decided_at) }
        : null,
    createdAt: iso(e.created_at),
  }
}

export async function listExperiments(sql: Sql, workspaceId: string): Promise<ExperimentT[]> {
  return (await store.selectExperiments(sql, workspaceId)).map(toExperiment)
}

const AB_EXPECTATIONS = ['a_better', 'b_better', 'no_difference']
const HOLDOUT_EXPECTATIONS = ['send_adds', 'no_difference']

/**
 * Record a hypothesis against a test that has not been decided. The test (or send) must exist in
 * this workspace (404), must not be decided (409), and the expectation must be one that test can
 * show (an A/B test shows a_better, b_better or no_difference; a hold-back shows send_adds or
 * no_difference). The subject row is locked FOR SHARE so it cannot be decided mid-write.
 */
export async function createExperiment(tx: Tx, workspaceId: string, input: CreateExperimentInput): Promise<ExperimentT> {
  const isAb = input.kind === 'email_ab_test'
  const allowed = isAb ? AB_EXPECTATIONS : HOLDOUT_EXPECTATIONS
  if (!allowed.includes(input.expectation)) {
    throw invalidRequest(
      `expectation ${input.expectation} does not fit kind ${input.kind}: use ${allowed.join(', ')}.`,
    )
  }
  if (input.decisionId !== undefined && !(await store.decisionExists(tx, workspaceId, input.decisionId))) {
    throw notFound('decision', input.decisionId)
  }
  if (isAb) {
    const test = await store.lockAbTest(tx, workspaceId, input.subjectId)
    if (!test) throw notFound('A/B test', input.subjectId)
    if (test.status === 'decided') {
      throw conflict(`A/B test ${input.subjectId} was decided${test.decided_at ? ` at ${iso(test.decided_at)}` : ''}; a hypothesis must be written before its test is decided.`)
    }
  } else {
    const send = await store.lockEmailSend(tx, workspaceId, input.subjectId)
    if (!send) throw notFound('email send', input.subjectId)
    if (send.holdout_status === 'decided') {
      throw conflict(`The hold-back of email send ${input.subjectId} was decided${send.decided_at ? ` at ${iso(send.decided_at)}` : ''}; a hypothesis must be written before its test is decided.`)
    }
  }
  const id = newId('experiment')
  await store.insertExperiment(tx, workspaceId, {
    id,
    hypothesis: input.hypothesis,
    kind: input.kind,
    subjectId: input.subjectId,
    expectation: input.expectation,
    decisionId: input.decisionId ?? null,
  })
  const experiment = toExperiment((await store.selectExperiment(tx, workspaceId, id))!)
  await appendEvent(tx, workspaceId, 'experiment.created', { experiment })
  return experiment
}
