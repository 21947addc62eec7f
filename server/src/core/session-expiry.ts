/**
 * When a console session stops working (CONTRACT: People and the console): 12 hours after it was
 * last seen (idle), 7 days after it began (absolute), or at once when ended (signed out, the person
 * removed). Its last sight is written at most once a minute, so a busy page is not a write per request.
 */
export const SESSION_IDLE_MS = 12 * 3600_000
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000
export const SESSION_TOUCH_MS = 60_000

type SessionTimes = { createdAt: Date; lastSeenAt: Date; endedAt: Date | null }
type SessionState = 'active' | 'ended' | 'idle' | 'expired'

export function sessionState(s: SessionTimes, now: Date): SessionState {
  if (s.endedAt) return 'ended'
  if (now.getTime() >= s.createdAt.getTime() + SESSION_ABSOLUTE_MS) return 'expired'
  if (now.getTime() >= s.lastSeenAt.getTime() + SESSION_IDLE_MS) return 'idle'
  return 'active'
}

/** When the session ends if nothing more happens: the earlier of its idle and absolute ends. */
export function sessionEndsAt(s: SessionTimes): Date {
  return new Date(Math.min(s.lastSeenAt.getTime() + SESSION_IDLE_MS, s.createdAt.getTime() + SESSION_ABSOLUTE_MS))
}

/** Whether a request now should record that the session was seen. */
export function shouldTouch(s: SessionTimes, now: Date): boolean {
  return now.getTime() - s.lastSeenAt.getTime() >= SESSION_TOUCH_MS
}

/**
 * A passkey is added only this soon after signing in (the session's start), so that a session taken
 * from an unlocked computer or a stolen cookie cannot add a passkey of its own and keep coming back
 * after the session ends. Later, the person signs in again (GitHub's "sudo mode" does the same).
 */
export const FRESH_SIGN_IN_MS = 30 * 60_000

export function signedInRecently(signedInAt: Date, now: Date): boolean {
  return now.getTime() - signedInAt.getTime() < FRESH_SIGN_IN_MS
}

/** A sign-in link works for 15 minutes. */
export const LINK_VALID_MS = 15 * 60_000
