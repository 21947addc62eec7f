import { getOutcomes } from '../domain/outcomes.ts'
import { Outcomes } from '../schemas/outcomes.ts'
import { defineItem, model } from './operation.ts'

export const outcomeOperations = [
  defineItem({
    method: 'GET',
    path: '/outcomes',
    operationId: 'getOutcomes',
    sdk: 'outcomes.get',
    summary: 'How predictions, findings and tests turned out',
    description:
      'Aggregates only: how predictions held up by author, by measure and by stated confidence (calibration), why findings were turned down, and what tests showed. A section with one entry per author, measure or reason holds at most the 100 largest and says how many there are.',
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'read:growth' },
    response: model('Outcomes', Outcomes),
    example: { query: {} },
    handler: ({ sql, caller }) => getOutcomes(sql, caller.workspaceId),
  }),
]
