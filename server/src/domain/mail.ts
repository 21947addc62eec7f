import { SYSTEM_ACTOR } from '../core/actor.ts'
import type { Sql } from '../core/db.ts'
import { type ClaimedMail, recordMail } from '../store/mail-outbox.ts'
import { actionIn, approvalIn } from './inbox.ts'
import { invitationMail, signInLinkMail, type WaitingEntry, waitingMail } from './mail-words.ts'
import { signInLink } from './sign-in.ts'
import { nextAttemptAt } from './webhook-schedule.ts'

/**
 * Sending the console's mail. The domain says what to send and to whom; a `MailPort` sends it (the
 * SMTP transport, workers/smtp.ts, outside the domain as the store is). The outbox holds what is to
 * be sent (store/mail-outbox.ts); the sender (workers/mail.ts) claims it and hands each mail here.
 */

export type Mail = { to: string; subject: string; text: string }

/** A mail server's refusal: `permanent` for a 5xx answer (never retried), else a failure to retry. */
export class MailError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message)
  }
}

export type MailPort = {
  /** Sends one mail; resolves once the mail server accepted it, throws a MailError otherwise. */
  send(mail: Mail): Promise<void>
}

type DeliverOptions = {
  port: MailPort
  /** The console's public base, for the links. */
  consoleUrl: string
  /** The waits after each failed attempt; its length is the number of retries. */
  retrySchedule: number[]
  /** At most one notice per person this often (MAIL_NOTICE_INTERVAL), named in the notice's words. */
  paceMs: number
  /** The sender holding the mail's lease. */
  owner: string
}

/** What became of one mail: sent, failed for good, dropped (nothing to send), or to go again (when). */
type Delivered = { outcome: 'sent' | 'failed' | 'dropped'; error: string | null } | { outcome: 'retry'; error: string; nextAttemptAt: Date }

/** Any address in a mail server's words is hidden: errors are stored and logged, addresses never. */
export const withoutAddresses = (text: string) => text.replace(/[^\s<>"'@]+@[^\s<>"'@]+/g, '[address]')

/**
 * Composes one claimed mail, sends it through the port and records the outcome. A sign-in link is
 * made now (so none is ever stored); a notice lists what still waits (an item decided or expired
 * meanwhile is left out, and with nothing left the notice is dropped). A person removed gets nothing.
 */
export async function deliverMail(sql: Sql, m: ClaimedMail, o: DeliverOptions): Promise<Delivered> {
  const where = { workspaceId: m.workspace_id, id: m.id, owner: o.owner }
  const drop = async (error: string): Promise<Delivered> => {
    await recordMail(sql, where, { status: 'dropped', error })
    return { outcome: 'dropped', error }
  }
  if (m.removed) return drop('The person was removed from the workspace.')
  const to = { name: m.name, workspaceName: m.workspace_name, role: m.role, invitedBy: m.invited_by_name }
  let written: { subject: string; text: string }
  if (m.kind === 'sign_in_link' || m.kind === 'invitation') {
    const link = await signInLink(sql, { personId: m.person_id, consoleUrl: o.consoleUrl, by: SYSTEM_ACTOR })
    written = m.kind === 'invitation' ? invitationMail(to, link, o.consoleUrl) : signInLinkMail(to, link)
  } else {
    if (to.role === 'viewer') return drop('The person only reads: notices go to owners and approvers.')
    const entries = await stillWaiting(sql, m)
    if (!entries.length) return drop('Nothing it told of waits any more.')
    written = waitingMail(to, entries, { consoleUrl: o.consoleUrl, paceMs: o.paceMs })
  }
  try {
    await o.port.send({ to: m.email, ...written })
  } catch (err) {
    const permanent = err instanceof MailError && err.permanent
    const error = withoutAddresses(err instanceof Error ? err.message : String(err))
    const next = permanent ? null : nextAttemptAt({ attempt: m.attempt, schedule: o.retrySchedule, now: Date.now() })
    if (!next || next.getTime() >= m.expires_at.getTime()) {
      await recordMail(sql, where, { status: 'failed', error })
      return { outcome: 'failed', error }
    }
    await recordMail(sql, where, { status: 'pending', error, nextAttemptAt: next })
    return { outcome: 'retry', error, nextAttemptAt: next }
  }
  await recordMail(sql, where, { status: 'sent' })
  return { outcome: 'sent', error: null }
}

/** The items of a notice that still wait for a person, in the order they came. */
async function stillWaiting(sql: Sql, m: ClaimedMail): Promise<WaitingEntry[]> {
  const now = new Date()
  const entries: WaitingEntry[] = []
  const seen = new Set<string>()
  for (const item of m.items) {
    if (seen.has(item.id)) continue
    seen.add(item.id)
    if (item.kind === 'approval') {
      const found = await approvalIn(sql, m.workspace_id, item.id, now)
      if (found && found.approval.status === 'pending' && !found.approval.expired) entries.push(found)
    } else {
      const action = await actionIn(sql, m.workspace_id, item.id)
      if (action && action.status === 'proposed') entries.push({ kind: 'action', action })
    }
  }
  return entries
}
