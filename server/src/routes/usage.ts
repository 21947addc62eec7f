import { getUsage } from '../domain/usage.ts'
import { Usage } from '../schemas/usage.ts'
import { defineItem, model } from './operation.ts'

export const usageOperations = [
  defineItem({
    method: 'GET',
    path: '/usage',
    operationId: 'getUsage',
    sdk: 'usage.get',
    summary: 'Allowances and API calls',
    description:
      "Each monthly allowance of the workspace's plan (emails, sms, trackedEvents, agentRequests) and the standing contacts allowance, with what is used and what remains; and the API calls counted this month, with the date counting began.",
    tag: 'Analytics',
    auth: { kind: 'workspace', scope: 'read:analytics' },
    response: model('Usage', Usage),
    example: { query: {} },
    handler: ({ sql, caller }) => getUsage(sql, caller.workspaceId),
  }),
]
