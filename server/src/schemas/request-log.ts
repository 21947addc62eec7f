import { z } from 'zod'
import { ERROR_CODES } from '../core/errors.ts'
import { Timestamp } from './common.ts'

/** `2xx`, `4xx`, `5xx`, or one status from 100 to 599. */
export const StatusFilter = z
  .string()
  .regex(/^([245]xx|[1-5][0-9][0-9])$/, { message: 'must be 2xx, 4xx, 5xx or one HTTP status such as 429' })

export const RequestLogEntry = z
  .object({
    id: z.string().describe('req_..., the request id the answer carried (X-Request-Id, and error.requestId on a refusal).'),
    method: z.string().describe('The HTTP method.'),
    path: z.string().describe('The path called, without its query string.'),
    operation: z.string().describe('The operationId, e.g. createExperiment.'),
    status: z.number().int().describe('The status answered.'),
    code: z.enum(ERROR_CODES).nullable().describe("The error's code; null on a success."),
    message: z.string().nullable().describe("The refusal's message, as the caller read it; null on a success."),
    durationMs: z.number().describe('From the request reaching the pipeline to its answer, in milliseconds.'),
    credential: z
      .object({
        id: z.string().describe('cred_...'),
        kind: z.enum(['live', 'test', 'agent']).nullable().describe('The kind of credential; null if it no longer exists.'),
        last4: z.string().nullable().describe('Its last four characters, to tell credentials apart; null if it no longer exists.'),
      })
      .describe('The credential that called.'),
    idempotencyKey: z.string().nullable().describe('The Idempotency-Key sent with a write; null otherwise.'),
    replayed: z.boolean().describe('True when the answer was a replay of the first answer kept under that key.'),
    createdAt: Timestamp,
  })
  .describe("One call of the workspace's credentials, as answered; kept 7 days.")

export type RequestLogEntry = z.infer<typeof RequestLogEntry>
