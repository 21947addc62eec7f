import { z } from 'zod'
import { APPROVAL_KINDS, APPROVAL_STATUSES } from '../core/enums.ts'
import { Timestamp } from './common.ts'
import { decisionFields } from './decided-by.ts'

export const Approval = z
  .object({
    id: z.string().describe('apr_...'),
    kind: z.enum(APPROVAL_KINDS).describe('A send waiting to go out, or an agent request the gateway held for a person.'),
    status: z.enum(APPROVAL_STATUSES).describe('pending, approved or rejected.'),
    summary: z.string().describe('What a person is asked to approve, in a line.'),
    subjectId: z.string().nullable().describe('The email send (snd_...) or the agent request (auth_...) waiting.'),
    requestedBy: z.string().describe('Who asked: an agent, a person or the API.'),
    ...decisionFields('it'),
    expiresAt: Timestamp.nullable().describe('Until when a decision or an approval can be used.'),
    expired: z.boolean().describe('Pending past expiresAt: it can no longer be approved. Expiry is not a rejection.'),
    usedAt: Timestamp.nullable().describe('When an approved request was carried out (an approval is used once).'),
    createdAt: Timestamp,
  })
  .describe("A send or an agent's request waiting for, or given, a person's approval.")

export type Approval = z.infer<typeof Approval>
