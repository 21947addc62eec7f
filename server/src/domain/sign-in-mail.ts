import type { Db } from '../core/db.ts'
import { newId } from '../core/ids.ts'
import { LINK_VALID_MS } from '../core/session-expiry.ts'
import { queueSignInMail } from '../store/mail-outbox.ts'
import { selectPeopleWithEmail } from '../store/people.ts'
import { takeSignInAttempt } from './sign-in-limits.ts'

/**
 * The console's "mail me a sign-in link": a link is mailed to each person (not removed) with this
 * address, in whichever workspace, and nothing happens for an address that is no one's; the caller
 * answers alike. The mail is queued, not sent here (workers/mail.ts sends it, and makes the link
 * then), so the answer takes as long whether or not the address is known, and never waits for the
 * mail server.
 *
 * Limited per hour (sign-in-limits.ts): requests from the network `address`, requests for the email
 * address (known or not), and links mailed to each person; past any of them, a SignInLimited
 * error and nothing is mailed.
 */
export async function mailSignInLink(sql: Db, opts: { email: string; address: string; at?: Date }): Promise<void> {
  const at = opts.at ?? new Date()
  const email = opts.email.trim().toLowerCase()
  await takeSignInAttempt(sql, 'linkRequestsPerAddress', opts.address, at)
  await takeSignInAttempt(sql, 'linkRequestsPerEmail', email, at)
  for (const person of await selectPeopleWithEmail(sql, email)) {
    await takeSignInAttempt(sql, 'linksPerPerson', `${person.workspace_id}/${person.id}`, at)
    await queueSignInMail(sql, { workspaceId: person.workspace_id, id: newId('mail', at), personId: person.id, at, expiresAt: new Date(at.getTime() + LINK_VALID_MS), kind: 'sign_in_link' })
  }
}

/**
 * A sign-in link mailed to a person an owner just invited (the console's People page): queued as
 * the "mail me a link" mail is (the sender makes the link when it goes, so the link is in no page,
 * log or audit entry) but written as an invitation (mail-words.ts), not counted against the hourly
 * limits, which guard a form anyone can post. `invitedBy`: the inviting person's id (the mail names them).
 */
export async function mailInviteLink(sql: Db, person: { workspaceId: string; id: string }, invitedBy: string, at = new Date()): Promise<void> {
  await queueSignInMail(sql, { workspaceId: person.workspaceId, id: newId('mail', at), personId: person.id, at, expiresAt: new Date(at.getTime() + LINK_VALID_MS), kind: 'invitation', invitedBy })
}
