import type { Tx } from '../core/db.ts'
import { NotFoundError } from '../core/errors.ts'
import { newId } from '../core/ids.ts'
import { iso } from '../core/time.ts'
import type { TrackInput, TrackResult } from '../schemas/tracking.ts'
import { selectContactByKey } from '../store/contacts.ts'
import { appendEvents } from '../store/events.ts'
import * as store from '../store/tracking.ts'
import { consumeMonthly } from './allowances.ts'

/**
 * POST /track: the contact must be one of this workspace (404). The event counts against the
 * trackedEvents allowance (402 past it) whether or not a workflow listens. Every active workflow
 * listening for the event, compared lower-cased, starts one run keeping the properties, in the same
 * transaction, each with its workflow.started event.
 */
export async function track(tx: Tx, workspaceId: string, input: TrackInput): Promise<TrackResult> {
  const event = input.event.toLowerCase()
  const contact = await selectContactByKey(tx, workspaceId, input.email.toLowerCase())
  if (!contact) throw new NotFoundError('contact with the address', input.email)
  await consumeMonthly(tx, workspaceId, 'trackedEvents', 1)
  const workflows = await store.selectListeningWorkflows(tx, workspaceId, event)
  const nameOf = new Map(workflows.map((w) => [w.id, w.name]))
  const inserted = await store.insertRuns(
    tx,
    workspaceId,
    workflows.map((w) => ({ id: newId('run'), workflow_id: w.id, contact_id: contact.id, event, properties: input.properties ?? {} })),
  )
  const runs = inserted.map((r) => ({ ...r, workflow_name: nameOf.get(r.workflow_id)! }))
  await appendEvents(
    tx,
    workspaceId,
    runs.map((r) => ({
      type: 'workflow.started',
      data: { run: { id: r.id, workflowId: r.workflow_id, workflowName: r.workflow_name, contactId: r.contact_id, event: r.event, properties: r.properties, createdAt: iso(r.created_at) } },
    })),
  )
  return {
    event,
    contactId: contact.id,
    workflowsStarted: runs.length,
    runs: runs.map((r) => ({ id: r.id, workflowId: r.workflow_id, workflowName: r.workflow_name })),
  }
}
