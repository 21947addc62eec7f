import { actionOperations } from './actions.ts'
import { agentOperations } from './agents.ts'
import { commerceOperations } from './commerce.ts'
import { contactOperations } from './contacts.ts'
import { eventOperations } from './events.ts'
import { growthOperations } from './growth.ts'
import { insightOperations } from './insights.ts'
import { metaOperations } from './meta.ts'
import type { Operation } from './operation.ts'

/** Every operation of the API, declared once; the app, GET /api/v1 and openapi.json all read this. */
export const operations: Operation[] = []
operations.push(
  ...metaOperations(() => operations),
  ...growthOperations,
  ...insightOperations,
  ...actionOperations,
  ...contactOperations,
  ...commerceOperations,
  ...eventOperations,
  ...agentOperations,
)
