import type { Db } from '../core/db.ts'
import { newId } from '../core/ids.ts'
import { queueWaitingNotices, type WaitingItem } from '../store/mail-outbox.ts'

/**
 * When something starts waiting for a person (an agent request needing approval, a proposed
 * change), each owner and approver of the workspace is to be told by mail. Called in the
 * transaction that made the item wait: the notice is kept exactly when the item is, and the request
 * never waits for the mail (a sender sends it, workers/mail.ts). Kept whether or not this process
 * sends mail: whichever process does (SMTP_URL) sends it; unsent, it is dropped after a day.
 */
const NOTICE_KEEP_MS = 24 * 3_600_000

export function noticeWaiting(tx: Db, workspaceId: string, item: WaitingItem, at = new Date()): Promise<number> {
  return queueWaitingNotices(tx, workspaceId, item, () => newId('mail', at), at, new Date(at.getTime() + NOTICE_KEEP_MS))
}
