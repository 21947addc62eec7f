import { actionOperations } from './actions.ts'
import { agentGatewayOperations } from './agent-gateway.ts'
import { agentRequestOperations } from './agent-requests.ts'
import { agentRuleOperations } from './agent-rules.ts'
import { agentToolOperations } from './agent-tools.ts'
import { agentOperations } from './agents.ts'
import { approvalOperations } from './approvals.ts'
import { connectionOperations } from './connections.ts'
import { contactOperations } from './contacts.ts'
import { customerOperations } from './customers.ts'
import { decisionOperations } from './decisions.ts'
import { eventOperations } from './events.ts'
import { experimentOperations } from './experiments.ts'
import { missionOperations } from './missions.ts'
import type { Operation } from './operation.ts'
import { opportunityOperations } from './opportunities.ts'
import { outcomeOperations } from './outcomes.ts'
import { requestLogOperations } from './request-log.ts'
import { revenueOperations } from './revenue.ts'
import { signalOperations } from './signals.ts'
import { trackingOperations } from './tracking.ts'
import { usageOperations } from './usage.ts'

/**
 * Every operation of the API, declared once, in the order the reference lists them. The http layer
 * adds the two public ones (routes/meta.ts) and serves them all.
 */
export const API_OPERATIONS: Operation[] = [
  ...missionOperations,
  ...decisionOperations,
  ...signalOperations,
  ...opportunityOperations,
  ...experimentOperations,
  ...outcomeOperations,
  ...approvalOperations,
  ...actionOperations,
  ...contactOperations,
  ...trackingOperations,
  ...customerOperations,
  ...revenueOperations,
  ...usageOperations,
  ...connectionOperations,
  ...eventOperations,
  ...agentOperations,
  ...agentToolOperations,
  ...agentRuleOperations,
  ...agentRequestOperations,
  ...agentGatewayOperations,
  ...requestLogOperations(() => API_OPERATIONS),
]
