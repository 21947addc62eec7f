import type { z } from 'zod'
import type { Sql, Tx } from '../store/db.ts'

/** Scopes of workspace tokens (spec: Authentication, Scopes). */
export const SCOPES = [
  'read:growth',
  'write:experiments',
  'write:actions',
  'write:contacts',
  'write:events',
  'read:contacts',
  'read:analytics',
  'read:events',
  'read:agents',
] as const
export type Scope = (typeof SCOPES)[number]

export type Auth = { kind: 'public' } | { kind: 'workspace'; scope: Scope } | { kind: 'agent' }

/** Who is calling, as the credential check established it. */
export type Caller = {
  workspaceId: string
  credentialId: string
  mode: 'live' | 'test' | 'agent'
  agentId: string | null
  scopes: string[]
  /** The workspace's own key for signing cursors and digests. Never sent anywhere. */
  secretKey: string
  /** This credential's rate limit as counted for this request (GET /agent/me reports it). */
  rateLimit: { limit: number; remaining: number; resetAt: Date }
}

export type Page<T> = { data: T[]; meta?: { nextCursor: string } }

/** A named response model: its zod schema becomes components.schemas[name] of the OpenAPI document. */
export type Model = { name: string; schema: z.ZodType }

type Common<Q extends z.ZodType | undefined> = {
  operationId: string
  path: string
  summary: string
  description?: string
  tag: string
  auth: Auth
  query?: Q
}

type QueryOf<Q> = Q extends z.ZodType ? z.output<Q> : Record<string, never>

export type ReadContext<Q> = { query: Q; caller: Caller; sql: Sql; requestId: string }
export type WriteContext<B> = { body: B; caller: Caller; tx: Tx; requestId: string }

export type ReadOperation<Q extends z.ZodType | undefined = z.ZodType | undefined> = Common<Q> & {
  method: 'GET'
  /**
   * `item`: data is one model; `list`: an array of it; `page`: an array with meta.nextCursor paging;
   * `raw`: the model itself, unwrapped (only the OpenAPI document, which tools read as it is).
   */
  response: { model: Model; shape: 'item' | 'list' | 'page' | 'raw'; /** page meta other than { nextCursor } */ meta?: Model }
  handler: (ctx: ReadContext<QueryOf<Q>>) => Promise<unknown>
}

export type WriteOperation<B extends z.ZodType = z.ZodType> = Common<undefined> & {
  method: 'POST'
  body: { model: Model & { schema: B } }
  response: { model: Model; shape: 'item' }
  /** Runs inside the transaction that also keeps the idempotency record and the events. */
  handler: (ctx: WriteContext<z.output<B>>) => Promise<unknown>
}

export type Operation = ReadOperation<any> | WriteOperation<any>

export const defineRead = <Q extends z.ZodType | undefined = undefined>(op: ReadOperation<Q>) => op as Operation
export const defineWrite = <B extends z.ZodType>(op: WriteOperation<B>) => op as Operation
