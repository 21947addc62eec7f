import { createHmac, timingSafeEqual } from 'node:crypto'
import { RuleError } from './errors.ts'

/**
 * Paging positions and cursors, shared by every list.
 *
 * A list is read in a fixed order and paged by keyset: each item comes with its position (its sort
 * key), the store reads the rows after a position, and the answer carries a cursor to the position
 * of the last item served. Cursors are opaque and signed: one names the list it pages, a digest of
 * the filter it was issued under, the workspace, and the position. It is signed with the workspace's
 * own secret, so a cursor the API did not issue, one issued for another list or filter, or one from
 * another workspace fails verification.
 */

/** Where a list ordered by (created_at, id) left off: the last item's created_at (ISO) and id. */
export type TimePosition = { t: string; id: string }

/** One item of a list and its position in the list's order. */
export type Positioned<Item, P> = { item: Item; position: P }

/** The position of an item of a list ordered by (createdAt, id), either way. */
export const byCreation = (row: { created_at: Date; id: string }): TimePosition => ({ t: row.created_at.toISOString(), id: row.id })

export type CursorContext = {
  workspaceId: string
  secretKey: string
  /** The list, e.g. listDecisions. */
  list: string
  /** The filter the cursor belongs to (undefined members do not count). */
  filter: Record<string, unknown>
}

type Payload = { l: string; f: string; w: string; p: unknown }

function filterDigest(filter: Record<string, unknown>): string {
  const keys = Object.keys(filter).filter((k) => filter[k] !== undefined).sort()
  return JSON.stringify(keys.map((k) => [k, filter[k]]))
}

function sign(secretKey: string, body: string): Buffer {
  return createHmac('sha256', secretKey).update(body).digest().subarray(0, 16)
}

export function encodeCursor(ctx: CursorContext, position: unknown): string {
  const payload: Payload = { l: ctx.list, f: filterDigest(ctx.filter), w: ctx.workspaceId, p: position }
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${sign(ctx.secretKey, body).toString('base64url')}`
}

/** The position inside `cursor`; a RuleError naming `param` when the API did not issue it for this list and filter. */
export function decodeCursor<P>(ctx: CursorContext, cursor: string, param: string): P {
  const bad = () => new RuleError('cursor', `${param} is not a cursor this API issued for this list and filter.`, param)
  const dot = cursor.indexOf('.')
  if (dot <= 0 || cursor.length > 2048) throw bad()
  const body = cursor.slice(0, dot)
  // The signature's text, compared as issued: decoding it first would take text the API never
  // issued (base64url's last character carries bits the decoder drops; it skips what is not base64url).
  const given = Buffer.from(cursor.slice(dot + 1))
  const expected = Buffer.from(sign(ctx.secretKey, body).toString('base64url'))
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad()
  let payload: Payload
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
  } catch {
    throw bad()
  }
  if (payload.l !== ctx.list || payload.w !== ctx.workspaceId || payload.f !== filterDigest(ctx.filter)) throw bad()
  return payload.p as P
}
