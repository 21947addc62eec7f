import { Elysia } from 'elysia'
import { NotFoundError } from '../../core/errors.ts'
import { listRequestLog } from '../../domain/request-log.ts'
import { idOf } from '../../schemas/common.ts'
import { StatusFilter } from '../../schemas/request-log.ts'
import { possessive } from '../pages/describe.ts'
import { parsePosition } from '../pages/inbox.ts'
import { type FilterRefusal, type LogFilter, logsPage } from '../pages/logs.ts'
import { pageResponse } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'

const LOG_PAGE = 50
const CREDENTIAL_ID = idOf('credential', 'a credential')

/**
 * The request log as a page: read by every signed-in person (CONTRACT: an approver reads
 * everything, a viewer reads), through listRequestLog as GET /api/v1/logs reads it.
 */
export function logRoutes({ sql, operationIds }: ConsoleDeps, kit: RouteKit) {
  const { signedIn } = kit
  return new Elysia().get('/console/logs', signedIn(async ({ request, session }) => {
    const q = new URL(request.url).searchParams
    const filter: LogFilter = { status: q.get('status')?.trim() || undefined, operation: q.get('operation')?.trim() || undefined, credentialId: q.get('credential')?.trim() || undefined }
    // A filter it cannot take: the page again with the form as typed and the reason beside it.
    const refuse = (refused: FilterRefusal, status = 400) => pageResponse(logsPage({ session, calls: [], next: null, filter, refused }), status)
    const bad = (what: FilterRefusal['field'], rule: string, got: string) => refuse({ field: what, message: `${what} ${rule} (got ${JSON.stringify(got.slice(0, 80))}).` })
    if (filter.status && !StatusFilter.safeParse(filter.status).success) return bad('status', 'must be 2xx, 4xx, 5xx or one HTTP status such as 429', filter.status)
    if (filter.operation && !/^[a-zA-Z]{1,64}$/.test(filter.operation)) return bad('operation', 'must be an operationId such as createExperiment', filter.operation)
    if (filter.operation && operationIds && !operationIds().includes(filter.operation)) return bad('operation', 'is not an operation of this API: give an operationId such as createExperiment', filter.operation)
    if (filter.credentialId && !CREDENTIAL_ID.safeParse(filter.credentialId).success) return bad('credential', 'must be a credential id, cred_…', filter.credentialId)
    const raw = q.get('after')
    const after = raw === null ? undefined : parsePosition(raw)
    if (after === null) return bad('after', 'must be a position this console gave: page with its Older calls link', raw!)
    let rows
    try {
      rows = await listRequestLog(sql, session.workspace.id, { ...filter, after, limit: LOG_PAGE + 1 })
    } catch (error) {
      if (error instanceof NotFoundError && error.resource === 'credential') return refuse({ field: 'credential', message: `credential ${filter.credentialId} is not one of ${possessive(session.workspace.name)}.` }, 404)
      throw error
    }
    const shown = rows.slice(0, LOG_PAGE)
    const next = rows.length > LOG_PAGE ? shown.at(-1)!.position : null
    return pageResponse(logsPage({ session, calls: shown.map((p) => p.item), next, filter }))
  }))
}
