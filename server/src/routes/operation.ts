import type { z } from 'zod'
import type { Auth, Caller } from '../core/caller.ts'
import type { Db, Sql, Tx } from '../core/db.ts'
import type { Positioned } from '../core/paging.ts'
import type { RecordDecision } from '../domain/agent-gateway.ts'

/**
 * The declaration of an operation carries everything about it: method, path, who may call it,
 * its query or body, its response model, how it pages, the rules its schema cannot state, and an
 * example. The pipeline (http/) serves it, the OpenAPI document describes it, and GET /api/v1 lists
 * it, all from this one declaration. Handlers are typed by the declared response: a handler that
 * answers something else does not compile, and the response-model test checks every real answer
 * against the document.
 */

/** A named model: its zod schema becomes components.schemas[name] of the OpenAPI document. */
type Model<S extends z.ZodType = z.ZodType> = { name: string; schema: S }
export const model = <S extends z.ZodType>(name: string, schema: S): Model<S> => ({ name, schema })

/**
 * A rule of the operation that its schema cannot state (a cross-field fit, a rule about the
 * workspace's records): named in the document, and refused with a 400 whose message matches.
 */
type StatedRule = { description: string; message: RegExp }

/**
 * How a list pages. `cursor`: newest-first (or ordered) pages with meta.nextCursor while there are
 * more; `before`: the same, named as the spec names agent requests' paging (before, meta.nextBefore);
 * `stream`: a stream read oldest first from a position (events): meta.nextCursor on every page that
 * holds items, and an empty page answers the cursor it was given.
 */
export type Paging = {
  style: 'cursor' | 'before' | 'stream'
  defaultLimit: number
  maxLimit: number
}

type QueryShape = z.ZodObject | undefined
type QueryOf<Q> = Q extends z.ZodType ? z.output<Q> : Record<string, never>
/** A public operation gets no caller. */
type CallerOf<A extends Auth> = A extends { kind: 'public' } ? undefined : Caller

type Common<A extends Auth> = {
  operationId: string
  /**
   * The SDK method that calls it, as `namespace.method` (`decisions.list`) or a top-level `method`
   * (`track`); the SDK and the CLI's commands are generated from it. null: not an SDK call (the
   * deployment's own index and document, for tools).
   */
  sdk: string | null
  path: string
  summary: string
  description: string
  tag: string
  auth: A
  rules?: StatedRule[]
}

type ItemRead<Q extends QueryShape = QueryShape, R extends z.ZodType = z.ZodType, A extends Auth = Auth> = Common<A> & {
  method: 'GET'
  query?: Q
  response: Model<R>
  /** The document itself (GET /openapi.json) is served bare, not wrapped in data. */
  bare?: boolean
  example?: { query: Record<string, string> }
  handler: (ctx: { query: QueryOf<Q>; caller: CallerOf<A>; sql: Sql }) => Promise<z.input<R>>
}

type ListRead<Q extends QueryShape = QueryShape, R extends z.ZodType = z.ZodType, P = unknown> = Common<Auth> & {
  method: 'GET'
  /** The filters; the paging parameters (limit and cursor, after or before) come from `paging`. */
  query?: Q
  paging: Paging
  response: Model<R>
  example?: { query: Record<string, string> }
  /**
   * One page: `page.after` is the position of the last item of the previous page, decoded from a
   * cursor this API signed for this list and filter (so it has the shape of the list's own positions).
   */
  // biome-ignore lint: the position's shape is the list's own; it is typed where the list reads it.
  handler: (ctx: { query: QueryOf<Q>; caller: Caller; sql: Sql; page: { after: any; limit: number } }) => Promise<Positioned<z.input<R>, P>[]>
}

/**
 * What the server builds once at start, beside its pools (server.ts), and hands every write's
 * handler: the handler passes it to the domain with the database handle it was given, and never
 * learns which pools or batches stand behind it.
 */
export type Services = {
  /** The agent gateway's way to judge and record a decision (store/agent-gateway-recorder.ts). */
  recordDecision: RecordDecision
}

export type Write<B extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> = Common<Auth> & {
  method: 'POST'
  body: Model<B>
  response: Model<R>
  example: { body: z.input<B> }
} & (
  | {
      atomic?: 'transaction'
      /** Runs inside the transaction that also keeps the idempotency record and the events. */
      handler: (ctx: { body: z.output<B>; caller: Caller; tx: Tx; services: Services }) => Promise<z.input<R>>
    }
  | {
      /**
       * The handler keeps itself atomic: each of its writes is one statement, or it opens its own
       * transaction (inTransaction). Without an Idempotency-Key (and for a live or agent credential)
       * it is given the pool instead of a transaction, so the locks of its last statement are
       * released as that statement commits rather than a round trip later; with a key it runs in the
       * key's transaction like any write. It must not throw a recorded refusal (nothing would commit it).
       */
      atomic: 'self'
      handler: (ctx: { body: z.output<B>; caller: Caller; tx: Db; services: Services }) => Promise<z.input<R>>
    }
)

export type Operation = (ItemRead<any, any, any> & { kind: 'item' }) | (ListRead<any, any, any> & { kind: 'list' }) | (Write<any, any> & { kind: 'write' })

export const defineItem = <Q extends QueryShape = undefined, R extends z.ZodType = z.ZodType, A extends Auth = Auth>(op: ItemRead<Q, R, A>): Operation =>
  ({ ...op, kind: 'item' }) as Operation
/** The name of a list's cursor parameter, and of the meta member that carries the next one. */
export function cursorNames(paging: Paging): { param: string; meta: string } {
  if (paging.style === 'before') return { param: 'before', meta: 'nextBefore' }
  if (paging.style === 'stream') return { param: 'after', meta: 'nextCursor' }
  return { param: 'cursor', meta: 'nextCursor' }
}

/**
 * The rule every list has that no schema can state: its cursor must be one this API issued for the
 * list, its filter and the workspace (core/paging.ts signs and checks it). Declared on each list, so
 * its description names it and a client knows a 400 for it is not a malformed request.
 */
function cursorRule(paging: Paging): StatedRule {
  const { param, meta } = cursorNames(paging)
  return {
    description: `${param} is a meta.${meta} this API issued for this list, with the same filter, in this workspace.`,
    message: new RegExp(`^${param} is not a cursor this API issued for this list and filter\\.`),
  }
}

export const defineList = <Q extends QueryShape = undefined, R extends z.ZodType = z.ZodType, P = unknown>(op: ListRead<Q, R, P>): Operation => ({
  ...op,
  rules: [...(op.rules ?? []), cursorRule(op.paging)],
  kind: 'list',
})
export const defineWrite = <B extends z.ZodType, R extends z.ZodType>(op: Write<B, R>): Operation => ({ ...op, kind: 'write' })

/** The paging of the lists the spec pages: limit 1..100, default 20. */
export const SPEC_PAGE: Paging = { style: 'cursor', defaultLimit: 20, maxLimit: 100 }
/** The lists the spec leaves unpaged: at most 500 items an answer, with a cursor to the rest (CONTRACT: Shapes). */
export const CAPPED_LIST: Paging = { style: 'cursor', defaultLimit: 500, maxLimit: 500 }
