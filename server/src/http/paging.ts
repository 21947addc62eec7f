import type { Caller, Page } from '../routes/operation.ts'
import { decodeCursor, encodeCursor } from './cursor.ts'

type Paging<Row, Item, P> = {
  caller: Caller
  /** The list the cursor belongs to, and the filter it was issued under. */
  list: string
  filter: Record<string, unknown>
  limit: number
  fetch: (after: P | undefined, limit: number) => Promise<Row[]>
  positionOf: (row: Row) => P
  toItem: (row: Row) => Item
}

/** What a cursor is bound to: the workspace (and its signing key), the list and its filter. */
function cursorContext(opts: Pick<Paging<unknown, unknown, unknown>, 'caller' | 'list' | 'filter'>) {
  return { workspaceId: opts.caller.workspaceId, secretKey: opts.caller.secretKey, list: opts.list, filter: opts.filter }
}

/**
 * Keyset paging with signed cursors. Fetches one row more than asked to know whether there is
 * another page; meta.nextCursor is set only then.
 */
export async function paged<Row, Item, P>(opts: Paging<Row, Item, P> & { cursor: string | undefined; cursorParam?: string }): Promise<Page<Item>> {
  const ctx = cursorContext(opts)
  const after = opts.cursor === undefined ? undefined : decodeCursor<P>(ctx, opts.cursor, opts.cursorParam)
  const rows = await opts.fetch(after, opts.limit + 1)
  const more = rows.length > opts.limit
  const pageRows = more ? rows.slice(0, opts.limit) : rows
  const data = pageRows.map((r) => opts.toItem(r))
  if (!more) return { data }
  return { data, meta: { nextCursor: encodeCursor(ctx, opts.positionOf(pageRows[pageRows.length - 1]!)) } }
}

/**
 * Paging of a stream read oldest first from a position (GET /events): meta.nextCursor is the
 * position of the last item served whenever the page holds any, so a consumer can always resume
 * from where it stopped, even when it has caught up. An empty page answers the cursor it was given
 * (or no meta, when none was), so polling again with the same cursor sees what arrives next.
 */
export async function streamed<Row, Item, P>(opts: Paging<Row, Item, P> & { after: string | undefined; cursorParam: string }): Promise<Page<Item>> {
  const ctx = cursorContext(opts)
  const after = opts.after === undefined ? undefined : decodeCursor<P>(ctx, opts.after, opts.cursorParam)
  const rows = await opts.fetch(after, opts.limit)
  const last = rows[rows.length - 1]
  if (last === undefined) return opts.after === undefined ? { data: [] } : { data: [], meta: { nextCursor: opts.after } }
  return { data: rows.map((r) => opts.toItem(r)), meta: { nextCursor: encodeCursor(ctx, opts.positionOf(last)) } }
}
