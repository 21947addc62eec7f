import { Elysia } from 'elysia'
import { RuleError } from '../../core/errors.ts'
import { type AuditFilter, listAudit } from '../../domain/audit.ts'
import { listPeople } from '../../domain/people.ts'
import { auditPage } from '../pages/audit.ts'
import { parsePosition } from '../pages/inbox.ts'
import { pageResponse } from '../responses.ts'
import type { ConsoleDeps, RouteKit } from '../route-kit.ts'

const AUDIT_PAGE = 50

/** Who did what in the workspace, newest first (`growth admin audit` as a page); every role reads it. */
export function auditRoutes({ sql }: ConsoleDeps, kit: RouteKit) {
  const { signedIn, problem } = kit
  return new Elysia().get('/console/audit', signedIn(async ({ request, session }) => {
    const q = new URL(request.url).searchParams
    const raw = q.get('before')
    const before = raw === null ? undefined : parsePosition(raw)
    if (before === null) return problem(400, 'Not a page of the audit list', `before must be a position this console gave (got ${JSON.stringify(raw!.slice(0, 80))}).`, session)
    // The form sends an empty choice as an empty value: that is no filter.
    const given = (name: string) => q.get(name)?.trim() || undefined
    const filter: AuditFilter = { kind: given('kind'), who: given('who'), subject: given('subject') }
    try {
      const { entries, next } = await listAudit(sql, session.workspace.id, AUDIT_PAGE, before, filter)
      const { people } = await listPeople(sql, session.workspace.id)
      return pageResponse(auditPage({ session, entries, next, paged: before !== undefined, filter, people }))
    } catch (error) {
      if (error instanceof RuleError) return problem(400, 'Not a filter of the audit list', error.message, session)
      throw error
    }
  }))
}
