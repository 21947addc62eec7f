import type { Sql, Tx } from '../core/db.ts'
import { ConflictError, NotFoundError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import { byCreation, type Positioned, type TimePosition } from '../core/paging.ts'
import { iso, isoOrNull } from '../core/time.ts'
import type { CreateExperimentInput, Experiment } from '../schemas/experiments.ts'
import { decisionExists } from '../store/decisions.ts'
import { appendEvent } from '../store/events.ts'
import * as store from '../store/experiments.ts'

function toExperiment(e: store.ExperimentRow): Experiment {
  return {
    id: e.id,
    hypothesis: e.hypothesis,
    kind: e.kind,
    subjectId: e.subject_id,
    expectation: e.expectation,
    decisionId: e.decision_id,
    status: e.subject_status,
    result:
      e.subject_status === 'decided' && e.observed
        ? { observed: e.observed, held: e.observed === e.expectation, decidedAt: isoOrNull(e.decided_at) }
        : null,
    createdAt: iso(e.created_at),
  }
}

/** Experiments newest first, each with the state of its test and what the test said once decided. */
export async function listExperiments(sql: Sql, workspaceId: string, page: { after?: TimePosition; limit: number }): Promise<Positioned<Experiment, TimePosition>[]> {
  return (await store.selectExperiments(sql, workspaceId, page)).map((e) => ({ position: byCreation(e), item: toExperiment(e) }))
}

/**
 * Record a hypothesis against a test that has not been decided. Its kind, subject and expectation
 * fit each other (the request's schema holds that). The test (or send) must exist in this workspace
 * (404) and must not be decided (409); the subject row is locked FOR SHARE so it cannot be decided
 * mid-write.
 */
export async function createExperiment(tx: Tx, workspaceId: string, input: CreateExperimentInput): Promise<Experiment> {
  if (input.decisionId !== undefined && !(await decisionExists(tx, workspaceId, input.decisionId))) {
    throw new NotFoundError('decision', input.decisionId)
  }
  const decidedAt = (at: Date | null) => (at ? ` at ${iso(at)}` : '')
  if (input.kind === 'email_ab_test') {
    const test = await store.lockAbTest(tx, workspaceId, input.subjectId)
    if (!test) throw new NotFoundError('A/B test', input.subjectId)
    if (test.status === 'decided') {
      throw new ConflictError(`A/B test ${input.subjectId} was decided${decidedAt(test.decided_at)}; a hypothesis must be written before its test is decided.`)
    }
  } else {
    const send = await store.lockEmailSend(tx, workspaceId, input.subjectId)
    if (!send) throw new NotFoundError('email send', input.subjectId)
    if (send.holdout_status === 'decided') {
      throw new ConflictError(`The hold-back of email send ${input.subjectId} was decided${decidedAt(send.decided_at)}; a hypothesis must be written before its test is decided.`)
    }
  }
  const id = newId('experiment')
  await store.insertExperiment(tx, {
    workspace_id: workspaceId,
    id,
    hypothesis: input.hypothesis,
    kind: input.kind,
    subject_id: input.subjectId,
    expectation: input.expectation,
    decision_id: input.decisionId ?? null,
  })
  const experiment = toExperiment((await store.selectExperiment(tx, workspaceId, id))!)
  await appendEvent(tx, workspaceId, 'experiment.created', { experiment })
  return experiment
}
