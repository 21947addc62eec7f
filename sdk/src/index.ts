/**
 * @growth-service/sdk: a typed client for the Growth Automation Service API.
 *
 *   import { Growth } from '@growth-service/sdk'
 *   const growth = new Growth()                       // GROWTH_TOKEN, GROWTH_BASE_URL
 *   for await (const decision of growth.decisions.list({ limit: 50 })) console.log(decision.title)
 */
export { APIPromise, type RateLimit, type WithResponse } from './api-promise.ts'
export { type ClientOptions, DEFAULT_BASE_URL, Growth, type GrowthConstructor } from './client.ts'
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  type ErrorCode,
  GrowthError,
  IdempotencyKeyReusedError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PlanRequiredError,
  RateLimitError,
  TimeoutError,
} from './errors.ts'
export type * from './generated/models.ts'
export { type OperationId, OPERATIONS, type OperationSpec } from './generated/operations.ts'
export type { Resources } from './generated/resources.ts'
export { AgentDeniedError, type AgentGuard, ApprovalRequiredError, decide, type GuardContext, type GuardOptions, type WaitForApproval } from './guard.ts'
export { clip, oneLine } from './one-line.ts'
export { isSimulated, type Mode, type ModeOf, type Simulated, type Written } from './mode.ts'
export type { Body, Data, Item, Query } from './operation-types.ts'
export { Page, PagePromise } from './pagination.ts'
export type { RequestOptions } from './request-options.ts'
export type { components, operations, paths } from './schema.ts'
export {
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookRawBody,
  type WebhookSignatureHeader,
  type WebhookSignOptions,
  type WebhookStandardSignOptions,
  WebhookVerificationError,
  type WebhookVerificationReason,
  type WebhookVerifyHeaders,
  type WebhookVerifyOptions,
  Webhooks,
} from './webhooks.ts'
