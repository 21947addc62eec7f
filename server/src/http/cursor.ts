import { createHmac, timingSafeEqual } from 'node:crypto'
import { invalidParameter } from '../errors.ts'

/**
 * Opaque, signed page cursors. A cursor names the list it pages, a digest of the filter it was
 * issued under, the workspace, and the position (the sort key of the last row served). It is signed
 * with the workspace's own secret, so a cursor the API did not issue, one issued for another list
 * or filter, or one from another workspace fails verification: 400 invalid_parameter.
 */
export type CursorContext = {
  workspaceId: string
  secretKey: string
  list: string
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

/** The position inside `cursor`, or 400 invalid_parameter naming `param`. */
export function decodeCursor<T>(ctx: CursorContext, cursor: string, param = 'cursor'): T {
  const bad = () => invalidParameter(`${param} is not a cursor this API issued for this list and filter.`)
  const dot = cursor.indexOf('.')
  if (dot <= 0 || cursor.length > 2048) throw bad()
  const body = cursor.slice(0, dot)
  const given = Buffer.from(cursor.slice(dot + 1), 'base64url')
  const expected = sign(ctx.secretKey, body)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad()
  let payload: Payload
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
  } catch {
    throw bad()
  }
  if (payload.l !== ctx.list || payload.w !== ctx.workspaceId || payload.f !== filterDigest(ctx.filter)) throw bad()
  return payload.p as T
}
