import { z } from 'zod'
import type { EventType } from '../core/event-types.ts'
import { Action } from './actions.ts'
import { AgentResult, GatewayDecisionSchema } from './agent-gateway.ts'
import { AgentRequest } from './agent-requests.ts'
import { Approval } from './approvals.ts'
import { Timestamp } from './common.ts'
import { Connection } from './connections.ts'
import { Contact } from './contacts.ts'
import { Decision } from './decisions.ts'
import { Event } from './events.ts'
import { Experiment } from './experiments.ts'
import { Opportunity } from './opportunities.ts'
import { Signal } from './signals.ts'
import EXAMPLES from './event-examples.json'

/**
 * What each event type's `data` holds, exactly as the emitters send it today (receivers depend on
 * it): the full record where the event carries one (Action, Contact, Approval), a summary of it where
 * the event carries less. The OpenAPI document's top-level `webhooks` is generated from these, and a
 * test validates every emitted event against that document.
 */
const SignalSummary = Signal.pick({ id: true, kind: true, title: true, status: true }).extend({
  opportunityId: z.string().nullable().describe('The opportunity (opp_...) this notice speaks for, or null.'),
})
const DecisionSummary = Decision.pick({ id: true, missionId: true, title: true, author: true })
const ExperimentPayload = Experiment.extend({ createdAt: Timestamp.optional().describe('Present when the experiment was written through the API.') })
const ConnectionSummary = Connection.omit({ lastDeliveredAt: true, createdAt: true })

const RequestDecided = AgentRequest.pick({ authorizationId: true, agentId: true, agentName: true, tool: true, action: true, mayProceed: true, reason: true }).extend({
  decision: GatewayDecisionSchema,
  approvalId: AgentRequest.shape.approvalId.optional(),
  rulesVersion: AgentRequest.shape.rulesVersion.optional(),
})

const WorkflowRun = z
  .object({
    id: z.string().describe('run_...'),
    workflowId: z.string().describe('The workflow (wf_...) started.'),
    workflowName: z.string().describe('The workflow\'s name.'),
    contactId: z.string().describe('The contact (ct_...) it runs for.'),
    event: z.string().describe('The tracked event that started it.'),
    properties: z.record(z.string(), z.unknown()).describe('The properties tracked with the event.'),
    createdAt: Timestamp,
  })
  .describe('A workflow run a tracked event started.')

const PolicyChange = z
  .object({
    kind: z.enum(['tool', 'action', 'agent', 'rule']).describe('What sort of thing changed.'),
    op: z.enum(['add', 'change', 'remove']).describe('Whether it was added, changed or removed.'),
    key: z.string().describe('What changed: a tool or action key, an agent id, a rule id.'),
    sentence: z.string().describe('The change in a sentence a person can read.'),
  })
  .describe('One change of the policy.')

const action = z.object({ action: Action.describe('The action, as GET /actions/{id} returns it.') })
const approval = z.object({ approval: Approval.describe('The approval, as GET /approvals returns it.') })
const contact = z.object({ contact: Contact.describe('The contact, as GET /contacts returns it.') })
const connection = z.object({ connection: ConnectionSummary.describe('The connection, without lastDeliveredAt and createdAt.') })
const experiment = z.object({ experiment: ExperimentPayload.describe('The experiment; createdAt only when it was written through the API.') })

const EVENT_PAYLOADS = {
  'signal.created': z.object({ signal: SignalSummary.describe('The signal, in short.') }),
  'signal.resolved': z.object({ signal: SignalSummary.extend({ resolvedAt: Timestamp.nullable() }).describe('The signal, in short, with when it was resolved.') }),
  'opportunity.created': z.object({ opportunity: Opportunity.pick({ id: true, title: true, status: true, worth: true, estimatedImpact: true }).describe('The opportunity, in short.') }),
  'decision.recorded': z.object({ decision: DecisionSummary.extend({ prediction: Decision.shape.prediction }).describe('The decision, in short, with what it predicted.') }),
  'decision.measured': z.object({ decision: DecisionSummary.extend({ outcome: Decision.shape.outcome.unwrap().describe('What happened.') }).describe('The decision, in short, with what was measured.') }),
  'experiment.created': experiment,
  'experiment.decided': experiment,
  'approval.requested': approval,
  'approval.approved': approval,
  'approval.rejected': approval,
  'action.proposed': action,
  'action.refused': action,
  'action.rejected': action,
  'action.applied': action,
  'action.failed': action,
  'contact.created': contact,
  'contact.updated': contact,
  'workflow.started': z.object({ run: WorkflowRun }),
  'agent.request.decided': z.object({ request: RequestDecided.describe('The decision, in short (GET /agents/requests has the whole of it).') }),
  'agent.result.reported': z.object({ result: AgentResult.extend({ createdAt: Timestamp.optional() }).describe('The result as the agent was answered.') }),
  'agent.policy.changed': z.object({ rulesVersion: z.number().int().describe('The rules version the workspace is at now.'), changes: z.array(PolicyChange).describe('What changed, one entry per tool, action, agent or rule.') }),
  'connection.failing': connection,
  'connection.restored': connection,
  'webhook.test': z.object({ endpoint: z.object({ id: z.string().describe('whe_...'), url: z.string().describe('The endpoint URL.') }).describe('The endpoint the test was sent to.') }),
} satisfies Record<EventType, z.ZodType>

/** The OpenAPI component name of an event type's delivery body: action.applied -> ActionAppliedEvent. */
export const eventModelName = (type: EventType): string =>
  `${type
    .split('.')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`

/** The delivery body of an event type: the event object with `data` as that type's payload. */
export const eventBody = (type: EventType) =>
  Event.extend({ event: z.literal(type).describe('The event type.'), data: EVENT_PAYLOADS[type].describe('What the event is about.') }).describe(`The body of a ${type} event, as delivered and as GET /events returns it.`)

/**
 * One example of each event type, captured from real emissions of the demo workspace (bun
 * scripts/capture-event-examples.ts): shown on the OpenAPI document's `webhooks`, and sent as a
 * sample by `growth admin webhook test --event TYPE` and `growth listen --trigger TYPE`.
 */
export const EVENT_EXAMPLES = EXAMPLES as Record<EventType, { id: string; event: EventType; createdAt: string; workspaceId: string; data: Record<string, unknown> }>
