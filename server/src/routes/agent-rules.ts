import * as rules from '../domain/agent-rules.ts'
import { Rule } from '../schemas/agent-rules.ts'
import { CAPPED_LIST, defineList, model } from './operation.ts'

export const agentRuleOperations = [
  defineList({
    method: 'GET',
    path: '/agents/rules',
    operationId: 'listAgentRules',
    sdk: 'agents.rules',
    summary: 'List agent rules',
    description: 'The rules in force for agents, oldest first, each as a sentence and as the structure the gateway judges.',
    tag: 'Agents',
    auth: { kind: 'workspace', scope: 'read:agents' },
    paging: CAPPED_LIST,
    response: model('Rule', Rule),
    example: { query: {} },
    handler: ({ sql, caller, page }) => rules.listRules(sql, caller.workspaceId, page),
  }),
]
