import { expect, test } from 'bun:test'
import { purgeConsoleRows } from '../../server/src/domain/console-housekeeping.ts'
import { noticeWaiting } from '../../server/src/domain/notices.ts'
import { addPerson } from '../../server/src/domain/people.ts'
import { redeemLink, signInLink } from '../../server/src/domain/sign-in.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * Where the console's old rows go: the housekeeping every server runs (every 10 minutes) deletes
 * sign-in links a day after they expired, sessions a day after they stopped working (signed out,
 * idle 12 hours, 7 days old), and mail a week after it was done; mail past its expiry is dropped.
 * What still works is kept.
 */
const DAY = 86_400_000

test('old links, sessions and mail are purged; live ones are kept', async () => {
  const { sql } = await getHarness()
  const ws = await makeWorkspace()
  const p = await addPerson(sql, { workspaceId: ws.id, email: `keep-${crypto.randomUUID().slice(0, 8)}@example.com`, name: 'Kim Keep', role: 'owner' })
  const now = new Date()
  const ago = (ms: number) => new Date(now.getTime() - ms)
  const consoleUrl = 'http://localhost/console'
  const tokenOf = (url: string) => url.split('/signin/')[1]!

  // Links: one expired two days ago (unused), one used and expired 25 hours ago, one fresh, one
  // expired only an hour ago (still answers "expired" rather than "not valid").
  await signInLink(sql, { personId: p.id, consoleUrl, at: ago(2 * DAY) })
  const used = await signInLink(sql, { personId: p.id, consoleUrl, at: ago(DAY + 3_600_000 + 15 * 60_000) })
  // Sessions: one signed in 25 hours ago and idle since (13 hours past the idle end: within the
  // day's grace), one signed in 8 days ago and seen an hour ago (past the absolute 7 days and the
  // grace), one signed out 2 days ago, and one in use now.
  const old = await redeemLink(sql, tokenOf(used.url), { at: ago(DAY + 3_600_000 + 10 * 60_000) })
  const tooOld = await redeemLink(sql, tokenOf((await signInLink(sql, { personId: p.id, consoleUrl, at: ago(8 * DAY + 3_600_000) })).url), { at: ago(8 * DAY + 3_600_000) })
  await sql`UPDATE console_sessions SET last_seen_at = ${ago(3_600_000)} WHERE workspace_id = ${ws.id} AND token_hash = ${hash(tooOld.token)}`
  const ended = await redeemLink(sql, tokenOf((await signInLink(sql, { personId: p.id, consoleUrl, at: ago(3 * DAY) })).url), { at: ago(3 * DAY) })
  await sql`UPDATE console_sessions SET ended_at = ${ago(2 * DAY)} WHERE workspace_id = ${ws.id} AND token_hash = ${hash(ended.token)}`
  const live = await redeemLink(sql, tokenOf((await signInLink(sql, { personId: p.id, consoleUrl })).url))
  await signInLink(sql, { personId: p.id, consoleUrl, at: ago(3_600_000 + 15 * 60_000) })

  // Mail: a notice sent 8 days ago, one pending and past its expiry, one pending and due.
  await noticeWaiting(sql, ws.id, { kind: 'approval', id: 'apr_sent' }, ago(9 * DAY))
  await sql`UPDATE mail_outbox SET status = 'sent', attempts = 1, done_at = ${ago(8 * DAY)} WHERE workspace_id = ${ws.id}`
  await noticeWaiting(sql, ws.id, { kind: 'approval', id: 'apr_expired' }, ago(2 * DAY))
  await sql`UPDATE mail_outbox SET attempts = 1 WHERE workspace_id = ${ws.id} AND status = 'pending'`
  await noticeWaiting(sql, ws.id, { kind: 'approval', id: 'apr_due' }, now)

  const before = await countsOf(ws.id)
  expect(before).toEqual({ links: 6, sessions: 4, mail: 3 })
  const purged = await purgeConsoleRows(sql, now)
  expect(purged.links).toBeGreaterThanOrEqual(4)
  expect(await countsOf(ws.id)).toEqual({ links: 2, sessions: 2, mail: 2 })
  // The live session and the recent link are what is left; the expired mail is dropped, not sent.
  const sessions = await sql<{ token_hash: string }[]>`SELECT token_hash FROM console_sessions WHERE workspace_id = ${ws.id}`
  expect(sessions.map((s) => s.token_hash).sort()).toEqual([hash(old.token), hash(live.token)].sort())
  expect(sessions.map((s) => s.token_hash)).not.toContain(hash(tooOld.token))
  const mail = await sql<{ status: string; items: { id: string }[] }[]>`SELECT status, items FROM mail_outbox WHERE workspace_id = ${ws.id} ORDER BY created_at`
  expect(mail.map((m) => [m.items[0]!.id, m.status])).toEqual([['apr_expired', 'dropped'], ['apr_due', 'pending']])

  // A week after it was dropped, that one goes too; the other, past its expiry by then, is dropped.
  await purgeConsoleRows(sql, new Date(now.getTime() + 8 * DAY))
  const later = await sql<{ status: string; items: { id: string }[] }[]>`SELECT status, items FROM mail_outbox WHERE workspace_id = ${ws.id}`
  expect(later.map((m) => [m.items[0]!.id, m.status])).toEqual([['apr_due', 'dropped']])
})

const hash = (token: string) => new Bun.CryptoHasher('sha256').update(token).digest('hex')

async function countsOf(workspaceId: string) {
  const { sql } = await getHarness()
  const [r] = await sql<{ links: number; sessions: number; mail: number }[]>`
    SELECT (SELECT count(*)::int FROM sign_in_links WHERE workspace_id = ${workspaceId}) AS links,
           (SELECT count(*)::int FROM console_sessions WHERE workspace_id = ${workspaceId}) AS sessions,
           (SELECT count(*)::int FROM mail_outbox WHERE workspace_id = ${workspaceId}) AS mail`
  return r!
}
