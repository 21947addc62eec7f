import type { Tx } from '../core/db.ts'
import { NotFoundError, RuleError } from '../core/errors.ts'
import * as store from '../store/audiences.ts'
import type { AudienceRef } from './action-effects.ts'

/** An audience named by a change: a list, or a segment this service can evaluate. */
type Audience = { ref: AudienceRef; query: store.AudienceQuery }

/** The list or segment the args name (404 when not in this workspace). */
export async function audienceOf(tx: Tx, workspaceId: string, a: { listId?: string; segmentId?: string }): Promise<Audience> {
  if (a.listId !== undefined) {
    const list = await store.selectList(tx, workspaceId, a.listId)
    if (!list) throw new NotFoundError('list', a.listId)
    return { ref: { kind: 'list', id: list.id, name: list.name }, query: { kind: 'list', id: list.id } }
  }
  const seg = await store.selectSegment(tx, workspaceId, a.segmentId!)
  if (!seg) throw new NotFoundError('segment', a.segmentId!)
  const query = segmentQuery(seg.definition)
  if (!query) throw new RuleError('segment.evaluable', `Segment ${seg.id} ("${seg.name}") has a definition this service cannot evaluate; use a list.`, 'args.segmentId')
  return { ref: { kind: 'segment', id: seg.id, name: seg.name }, query }
}

/** Segments this service can evaluate: conditions on tags (all or any of them). */
function segmentQuery(definition: unknown): store.AudienceQuery | null {
  const d = definition as { match?: string; conditions?: { field?: string; op?: string; value?: unknown }[] } | null
  const conditions = d?.conditions
  if (!Array.isArray(conditions) || !conditions.length) return null
  if (!conditions.every((c) => c.field === 'tags' && c.op === 'contains' && typeof c.value === 'string')) return null
  return { kind: 'segment', match: d?.match === 'any' ? 'any' : 'all', tags: conditions.map((c) => c.value as string) }
}

/** `List lst_...` or `Segment seg_...`, for sentences. */
export const audienceName = (a: AudienceRef) => `${a.kind === 'list' ? 'List' : 'Segment'} ${a.id}`
