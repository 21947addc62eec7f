import { expect, test } from 'bun:test'
import { Growth, OPERATIONS } from '../../sdk/src/index.ts'
import { call } from '../harness.ts'

/**
 * One SDK method per operation, generated from the document: an operation the server serves without
 * a method fails here (regenerate with npm run sdk:generate, and declare `sdk` on the operation).
 */

/** The contract's method table (CONTRACT.md, The SDK). */
const CONTRACT: Record<string, string> = {
  listMissions: 'missions.list',
  listDecisions: 'decisions.list',
  listExperiments: 'experiments.list',
  createExperiment: 'experiments.create',
  listSignals: 'signals.list',
  listOpportunities: 'opportunities.list',
  getOutcomes: 'outcomes.get',
  listApprovals: 'approvals.list',
  listActions: 'actions.list',
  createAction: 'actions.create',
  importContacts: 'contacts.import',
  trackEvent: 'track',
  listCustomers: 'customers.list',
  getRevenue: 'revenue.get',
  getUsage: 'usage.get',
  listConnections: 'connections.list',
  listEvents: 'events.list',
  listAgents: 'agents.list',
  listAgentTools: 'agents.tools',
  listAgentRules: 'agents.rules',
  listAgentRequests: 'agents.requests',
  listRequestLogs: 'logs.list',
  authorizeAgentAction: 'agent.authorize',
  reportAgentResult: 'agent.result',
  getAgentSelf: 'agent.me',
}
/** Served for tools, not callers: the deployment's list of endpoints and its OpenAPI document. */
const NOT_SDK = ['getApiIndex', 'getOpenApiDocument']

test('every operation the server serves has its SDK method, named as the contract names it', async () => {
  const index = await call('GET', '/api/v1')
  const served: string[] = index.body.data.endpoints.map((e: { operationId: string }) => e.operationId)
  const document = (await call('GET', '/api/v1/openapi.json')).body
  const declared: Record<string, string> = {}
  for (const item of Object.values(document.paths) as Record<string, { operationId: string; 'x-sdk-method'?: string }>[]) {
    for (const op of Object.values(item)) if (op['x-sdk-method']) declared[op.operationId] = op['x-sdk-method']
  }
  expect(served.filter((id) => !NOT_SDK.includes(id) && !(id in OPERATIONS))).toEqual([])
  expect(declared).toEqual(CONTRACT)
  const generated = Object.fromEntries(Object.entries(OPERATIONS).map(([id, spec]) => [id, spec.sdk.join('.')]))
  expect(generated).toEqual(CONTRACT)

  const growth = new Growth({ token: 'svc_live_x', baseUrl: 'http://127.0.0.1:9/api/v1' }) as unknown as Record<string, Record<string, unknown>>
  const missing = Object.values(CONTRACT).filter((name) => {
    const [a, b] = name.split('.')
    const member = b === undefined ? growth[a!] : growth[a!]?.[b]
    return typeof member !== 'function'
  })
  expect(missing).toEqual([])
  expect(typeof growth.agent!.guard).toBe('function')
})
