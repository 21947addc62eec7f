/**
 * The catalogue of event types (CONTRACT: Events and webhooks), each with what its `data` holds.
 * GET /events serves them and webhooks deliver them; the OpenAPI document lists this catalogue.
 * `action.rejected` is ours: the contract's catalogue may grow, and without it a person's "no" to a
 * proposed change would be the one decision a consumer could not see.
 */
export const EVENT_CATALOGUE = {
  'signal.created': 'The product noticed something in the business. data.signal.',
  'signal.resolved': 'A signal was resolved. data.signal.',
  'opportunity.created': 'A thing worth doing was found. data.opportunity.',
  'decision.recorded': 'A decision and its prediction entered the ledger. data.decision.',
  'decision.measured': 'What a decision predicted was measured. data.decision (with outcome).',
  'experiment.created': 'A hypothesis was written against a test. data.experiment (the Experiment).',
  'experiment.decided': 'The test an experiment is about was decided. data.experiment.',
  'approval.requested': 'A send or an agent request waits for a person. data.approval.',
  'approval.approved': 'A person approved it. data.approval.',
  'approval.rejected': 'A person rejected it. data.approval.',
  'action.proposed': 'A proposed change passed the workspace limits and waits for a person. data.action (the Action).',
  'action.refused': "The workspace's limits refused a proposed change; data.action.limits.reason says why. data.action.",
  'action.rejected': 'A person rejected a proposed change. data.action.',
  'action.applied': 'An approved change was carried out; data.action.outcome says how. data.action.',
  'action.failed': 'An approved change could not be carried out; data.action.outcome.error says why. data.action.',
  'contact.created': 'A contact was added (POST /contacts). data.contact (the Contact).',
  'contact.updated': 'A contact was changed: fields, merged tags or a list joined. data.contact.',
  'workflow.started': 'A tracked event started a workflow run. data.run: id, workflowId, workflowName, contactId, event, properties, createdAt.',
  'agent.request.decided': 'The agent gateway decided a request. data.request.',
  'agent.result.reported': 'An agent reported what became of an allowed action. data.result.',
  'agent.policy.changed': "The workspace's agent policy was applied (by an owner in the console, or an operator with growth admin policy apply). data: { rulesVersion, changes: [{ kind, op, key, sentence }] }.",
  'connection.failing': 'A connection stopped delivering. data.connection.',
  'connection.restored': 'A connection delivers again. data.connection.',
  'webhook.test': "A test delivery (an owner's Send in the console, or growth admin webhook test). data.endpoint: the endpoint (id, url) it was sent to.",
} as const

export type EventType = keyof typeof EVENT_CATALOGUE
export const EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as [EventType, ...EventType[]]
