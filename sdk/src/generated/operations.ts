/**
 * Generated from the server's OpenAPI document (its x-sdk-method and x-paging). Do not edit by
 * hand: run `npm run sdk:generate`. test/sdk/drift.test.ts fails when this file is out of date.
 */

/** How a list pages: the query parameter that takes the next position, and the meta member giving it. */
export type PagingSpec = { param: string; next: string; stream: boolean; defaultLimit: number }

/** One operation: how to call it, and the SDK method that does. */
export type OperationSpec = {
  method: 'GET' | 'POST'
  path: string
  sdk: readonly string[]
  kind: 'item' | 'list' | 'write'
  paging?: PagingSpec
}

export const OPERATIONS = {
  listMissions: { method: 'GET', path: '/missions', sdk: ['missions','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  listDecisions: { method: 'GET', path: '/decisions', sdk: ['decisions','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 20 } },
  listSignals: { method: 'GET', path: '/signals', sdk: ['signals','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  listOpportunities: { method: 'GET', path: '/opportunities', sdk: ['opportunities','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  listExperiments: { method: 'GET', path: '/experiments', sdk: ['experiments','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  createExperiment: { method: 'POST', path: '/experiments', sdk: ['experiments','create'], kind: 'write' },
  getOutcomes: { method: 'GET', path: '/outcomes', sdk: ['outcomes','get'], kind: 'item' },
  listApprovals: { method: 'GET', path: '/approvals', sdk: ['approvals','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 20 } },
  listActions: { method: 'GET', path: '/actions', sdk: ['actions','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 20 } },
  createAction: { method: 'POST', path: '/actions', sdk: ['actions','create'], kind: 'write' },
  importContacts: { method: 'POST', path: '/contacts', sdk: ['contacts','import'], kind: 'write' },
  trackEvent: { method: 'POST', path: '/track', sdk: ['track'], kind: 'write' },
  listCustomers: { method: 'GET', path: '/customers', sdk: ['customers','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  getRevenue: { method: 'GET', path: '/revenue', sdk: ['revenue','get'], kind: 'item' },
  getUsage: { method: 'GET', path: '/usage', sdk: ['usage','get'], kind: 'item' },
  listConnections: { method: 'GET', path: '/connections', sdk: ['connections','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  listEvents: { method: 'GET', path: '/events', sdk: ['events','list'], kind: 'list', paging: { param: 'after', next: 'nextCursor', stream: true, defaultLimit: 20 } },
  listAgents: { method: 'GET', path: '/agents', sdk: ['agents','list'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  listAgentTools: { method: 'GET', path: '/agents/tools', sdk: ['agents','tools'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  listAgentRules: { method: 'GET', path: '/agents/rules', sdk: ['agents','rules'], kind: 'list', paging: { param: 'cursor', next: 'nextCursor', stream: false, defaultLimit: 500 } },
  listAgentRequests: { method: 'GET', path: '/agents/requests', sdk: ['agents','requests'], kind: 'list', paging: { param: 'before', next: 'nextBefore', stream: false, defaultLimit: 20 } },
  authorizeAgentAction: { method: 'POST', path: '/agent/authorize', sdk: ['agent','authorize'], kind: 'write' },
  reportAgentResult: { method: 'POST', path: '/agent/result', sdk: ['agent','result'], kind: 'write' },
  getAgentSelf: { method: 'GET', path: '/agent/me', sdk: ['agent','me'], kind: 'item' },
  listRequestLogs: { method: 'GET', path: '/logs', sdk: ['logs','list'], kind: 'list', paging: { param: 'before', next: 'nextBefore', stream: false, defaultLimit: 20 } },
} as const satisfies Record<string, OperationSpec>

export type OperationId = keyof typeof OPERATIONS
