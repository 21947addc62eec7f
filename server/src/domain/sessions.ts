import { randomBytes } from 'node:crypto'
import type { Actor } from '../core/actor.ts'
import { consoleTokenWorkspace, hashConsoleToken, mintConsoleToken } from '../core/console-tokens.ts'
import type { Db, Tx } from '../core/db.ts'
import { secretsKeyring } from '../core/secrets.ts'
import { sessionEndsAt, sessionState, shouldTouch } from '../core/session-expiry.ts'
import { iso } from '../core/time.ts'
import * as store from '../store/console-sessions.ts'
import { inTransaction } from '../store/driver/db.ts'
import { markSignedIn, type PersonRow } from '../store/people.ts'
import { recordAudit } from './audit.ts'
import { type Person, toPerson } from './people.ts'

/**
 * Console sessions, kept in the database so that every server process shares them. The token is
 * the cookie's value (only its SHA-256 is stored); each session has its own CSRF secret, stored
 * sealed, that the console puts in its forms and checks on every POST.
 */
type ConsoleSession = {
  session: { createdAt: string; lastSeenAt: string; expiresAt: string }
  person: Person
  workspace: { id: string; name: string }
  csrf: string
}

export const personActor = (p: Person | PersonRow): Actor => ({ kind: 'person', id: p.id, name: p.name })

/**
 * The one way a person is signed in, whatever proved who they are (a link, a passkey): a new
 * session (its token, for the cookie, and its CSRF secret), recorded in the audit list as their
 * sign-in with the method (`via`) and where from. Called in the transaction that used up the proof.
 */
export async function signInSession(
  tx: Tx,
  person: PersonRow,
  how: { via: 'link' | 'passkey'; address?: string; detail?: Record<string, unknown> },
  at: Date,
): Promise<{ token: string; csrf: string }> {
  const minted = mintConsoleToken('session', person.workspace_id)
  const csrf = randomBytes(32).toString('base64url')
  await store.insertSession(tx, { workspaceId: person.workspace_id, hash: minted.hash, personId: person.id, csrfSecret: secretsKeyring().seal(csrf), at })
  await markSignedIn(tx, person.workspace_id, person.id, at)
  await recordAudit(tx, person.workspace_id, personActor(person), 'person.signed_in', person.id, { via: how.via, ...how.detail, address: how.address }, at)
  return { token: minted.token, csrf }
}

/**
 * Who a session token signs in, or null: unknown, ended, idle for 12 hours, older than 7 days, or
 * its person removed. A live session's last sight is recorded at most once a minute, unless
 * `touch` is false (an open page's live stream asking whether its session still stands is no sight
 * of the person: a tab left open must not keep its session from idling out).
 */
export async function sessionOf(sql: Db, token: string, now = new Date(), opts: { touch?: boolean } = {}): Promise<ConsoleSession | null> {
  const workspaceId = consoleTokenWorkspace('session', token)
  if (!workspaceId) return null
  const hash = hashConsoleToken(token)
  const found = await store.selectSession(sql, workspaceId, hash)
  if (!found || found.person.removed_at) return null
  const s = found.session
  const times = { createdAt: s.created_at, lastSeenAt: s.last_seen_at, endedAt: s.ended_at }
  if (sessionState(times, now) !== 'active') return null
  if (opts.touch !== false && shouldTouch(times, now)) {
    await store.touchSession(sql, workspaceId, hash, now)
    times.lastSeenAt = now
  }
  return {
    session: { createdAt: iso(times.createdAt), lastSeenAt: iso(times.lastSeenAt), expiresAt: iso(sessionEndsAt(times)) },
    person: toPerson(found.person),
    workspace: { id: workspaceId, name: found.workspaceName },
    csrf: secretsKeyring().open(s.csrf_secret),
  }
}

/** Signs out: the session ends at once (recorded as the person's sign-out); false if it already had. */
export async function endSession(sql: Db, token: string, at = new Date()): Promise<boolean> {
  const workspaceId = consoleTokenWorkspace('session', token)
  if (!workspaceId) return false
  const hash = hashConsoleToken(token)
  const found = await store.selectSession(sql, workspaceId, hash)
  if (!found) return false
  return inTransaction(sql, async (tx) => {
    if (!(await store.endSessionRow(tx, workspaceId, hash, at))) return false
    await recordAudit(tx, workspaceId, personActor(found.person), 'person.signed_out', found.person.id, {}, at)
    return true
  })
}

/** Signs the person out everywhere: every open session ends at once. How many ended. */
export async function endAllSessions(sql: Db, person: { workspaceId: string; id: string }, opts: { by: Actor; at?: Date }): Promise<number> {
  const at = opts.at ?? new Date()
  return inTransaction(sql, async (tx) => {
    const n = await store.endSessionsOf(tx, person.workspaceId, person.id, at)
    await recordAudit(tx, person.workspaceId, opts.by, 'person.signed_out', person.id, { everywhere: true, sessionsEnded: n }, at)
    return n
  })
}
