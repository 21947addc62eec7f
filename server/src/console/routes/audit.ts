import { Elysia } from 'elysia'
import { listAudit } from '../../domain/audit.ts'
import { auditPage } from '../pages/audit.ts'
import { parsePosition } from '../pages/inbox.ts'
import { pageResponse } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'

const AUDIT_PAGE = 50

/** Who did what in the workspace, newest first (`growth admin audit` as a page); every role reads it. */
export function auditRoutes({ sql }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, problem } = kit
  return new Elysia().get('/console/audit', signedIn(async ({ request, session }) => {
    const raw = new URL(request.url).searchParams.get('before')
    const before = raw === null ? undefined : parsePosition(raw)
    if (before === null) return problem(400, 'Not a page of the audit list', `before must be a position this console gave (got ${JSON.stringify(raw!.slice(0, 80))}).`, session)
    const { entries, next } = await listAudit(sql, session.workspace.id, AUDIT_PAGE, before)
    return pageResponse(auditPage({ session, entries, next, paged: before !== undefined }))
  }))
}
