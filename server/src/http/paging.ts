import { z } from 'zod'
import type { Caller } from '../core/caller.ts'
import { type CursorContext, decodeCursor, encodeCursor, type Positioned } from '../core/paging.ts'
import { queryInteger } from '../schemas/common.ts'
import { cursorNames, type Operation, type Paging } from '../routes/operation.ts'

/**
 * Paging, written once for every list: the paging parameters each list takes (from its declared
 * paging), the cursor checked and turned into a position, one item more read than asked to know
 * whether another page follows, and the meta that says where the next page starts.
 */

type ListOperation = Extract<Operation, { kind: 'list' }>

// The names of a list's cursor parameter and meta member are the declaration's (routes/operation.ts).
export { cursorNames }

/** `limit`: a plain decimal integer (no 0x10, 1e1, +5 or 5.0) within the list's bounds. */
const limitParam = (p: Paging) => queryInteger(1, p.maxLimit, p.defaultLimit)

const querySchemas = new WeakMap<Operation, z.ZodType>()

/** The whole query of a list: its filters and its paging parameters; of any other GET, its declared query or none. */
export function querySchemaOf(op: Operation): z.ZodType {
  let schema = querySchemas.get(op)
  if (!schema) {
    const filters: z.ZodObject = (op.kind !== 'write' && op.query) || z.strictObject({})
    if (op.kind !== 'list') schema = filters
    else {
      const { param } = cursorNames(op.paging)
      schema = filters.extend({ limit: limitParam(op.paging), [param]: z.string().min(1).max(2048).optional() })
    }
    querySchemas.set(op, schema)
  }
  return schema
}

/** The paging parameters of a list, as the OpenAPI document describes them. */
export function pagingParameters(op: ListOperation) {
  const { param, meta } = cursorNames(op.paging)
  return [
    {
      name: 'limit',
      in: 'query',
      required: false,
      description: `How many items to return, 1 to ${op.paging.maxLimit} (default ${op.paging.defaultLimit}).`,
      schema: { type: 'integer', minimum: 1, maximum: op.paging.maxLimit, default: op.paging.defaultLimit },
    },
    {
      name: param,
      in: 'query',
      required: false,
      description:
        op.paging.style === 'stream'
          ? `The meta.${meta} of the previous answer: the events after it. From the first event when omitted.`
          : `The meta.${meta} of the previous page: the page after it. A cursor is bound to its list, filter and workspace.`,
      // A cursor is opaque, but always made of characters a URL carries as they are (base64url and a
      // dot): stated, so a client never sends (and a URL never grows with) percent-encoded text.
      schema: { type: 'string', minLength: 1, maxLength: 2048, pattern: '^[A-Za-z0-9._~-]+$' },
    },
  ]
}

/** Reads one page of a list: the query parsed, the cursor decoded, the items and the meta. */
export async function readPage(
  op: ListOperation,
  query: Record<string, unknown>,
  caller: Caller,
  read: (page: { after: unknown; limit: number }) => Promise<Positioned<unknown, unknown>[]>,
): Promise<{ data: unknown[]; meta?: Record<string, string> }> {
  const { param, meta } = cursorNames(op.paging)
  const { limit, [param]: cursor, ...filter } = query as { limit: number } & Record<string, unknown>
  const ctx: CursorContext = { workspaceId: caller.workspaceId, secretKey: caller.secretKey, list: op.operationId, filter }
  const after = typeof cursor === 'string' ? decodeCursor(ctx, cursor, param) : undefined

  if (op.paging.style === 'stream') {
    // A stream has no last page: every page that holds items says where it ends, and an empty page
    // answers the cursor it was given, so polling again with it sees what arrives next.
    const items = await read({ after, limit })
    const last = items.at(-1)
    if (!last) return typeof cursor === 'string' ? { data: [], meta: { [meta]: cursor } } : { data: [] }
    return { data: items.map((i) => i.item), meta: { [meta]: encodeCursor(ctx, last.position) } }
  }
  const items = await read({ after, limit: limit + 1 })
  if (items.length <= limit) return { data: items.map((i) => i.item) }
  const page = items.slice(0, limit)
  return { data: page.map((i) => i.item), meta: { [meta]: encodeCursor(ctx, page.at(-1)!.position) } }
}
