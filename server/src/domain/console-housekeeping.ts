import type { Sql } from '../core/db.ts'
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from '../core/session-expiry.ts'
import { purgeSessions } from '../store/console-sessions.ts'
import { purgeMail } from '../store/mail-outbox.ts'
import { purgeSignInLinks } from '../store/sign-in-links.ts'

/**
 * Where the console's old rows go: every server's housekeeping (every 10 minutes) deletes sign-in
 * links a day after they expired (used or not), sessions a day after they stopped working (ended,
 * idle 12 hours, or 7 days old), and finished mail a week after it was sent, failed or dropped; mail
 * past its expiry is dropped. The audit list keeps every sign-in and sign-out. A day's grace keeps a
 * link used a moment ago saying "already used" rather than "not valid".
 */
const KEEP_ENDED_MS = 24 * 3_600_000
const KEEP_MAIL_MS = 7 * 24 * 3_600_000

export async function purgeConsoleRows(sql: Sql, now = new Date()): Promise<{ links: number; sessions: number; mail: number }> {
  const before = (ms: number) => new Date(now.getTime() - ms)
  const [links, sessions, mail] = await Promise.all([
    purgeSignInLinks(sql, before(KEEP_ENDED_MS)),
    purgeSessions(sql, {
      endedBefore: before(KEEP_ENDED_MS),
      seenBefore: before(SESSION_IDLE_MS + KEEP_ENDED_MS),
      createdBefore: before(SESSION_ABSOLUTE_MS + KEEP_ENDED_MS),
    }),
    purgeMail(sql, now, KEEP_MAIL_MS),
  ])
  return { links, sessions, mail }
}
