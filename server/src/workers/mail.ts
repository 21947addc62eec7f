import { randomBytes } from 'node:crypto'
import type { MailSettings } from '../config.ts'
import type { Sql } from '../core/db.ts'
import type { Logger } from '../core/log.ts'
import { RepeatedFailure } from '../core/repeated-failure.ts'
import { deliverMail, type MailPort, withoutAddresses } from '../domain/mail.ts'
import { claimMail, type ClaimedMail, reapMailLeases, releaseMailLeases } from '../store/mail-outbox.ts'
import { SMTP_MAX_MS, smtpMailPort } from './smtp.ts'

/**
 * The mail sender: claims due mail from the outbox (store/mail-outbox.ts) that every server process
 * shares, composes and sends each (domain/mail.ts) and records what happened. It runs in each
 * server process with SMTP_URL set: several processes share the outbox (FOR UPDATE SKIP LOCKED and a
 * lease), so a mail goes once, and one left by a process that stopped or died goes again when its
 * lease runs out. It looks every POLL_MS, and at once when this process queued mail (`wake`).
 */

/** Mails one sender has out at once. */
const SLOTS = 8
/** How long a stop waits for the mail out: past it, what is still out keeps its lease and goes again once that runs out. */
const STOP_WAIT_MS = 3000
const POLL_MS = 1000
const REAP_MS = 5000

type SenderOptions = {
  sql: Sql
  log: Logger
  settings: MailSettings
  /** The console's public base, for the links in the mail. */
  consoleUrl: string
  /** The port mail goes through: SMTP from the settings unless given. */
  port?: MailPort
}

export type MailSender = {
  /** Look for mail now (this process queued some). */
  wake(): void
  /** Stop claiming; finish what is out (each send is bounded in time), then give back any lease still held. */
  stop(): Promise<void>
}

export function startMailSender(opts: SenderOptions): MailSender {
  const owner = `mail-${process.pid}-${randomBytes(4).toString('hex')}`
  const smtp = opts.port ? undefined : smtpMailPort(opts.settings)
  const port = opts.port ?? smtp!
  const leaseMs = 2 * SMTP_MAX_MS
  let stopping = false
  let wakeups = 0
  let waker: (() => void) | undefined
  const wake = () => {
    wakeups++
    waker?.()
  }

  async function sendOne(m: ClaimedMail) {
    const d = await deliverMail(opts.sql, m, { port, consoleUrl: opts.consoleUrl, retrySchedule: opts.settings.retrySchedule, paceMs: opts.settings.noticeIntervalMs, owner })
    // What a person reads is never logged: no address, no link, no text; the mail by its id.
    const fields = { mailId: m.id, workspaceId: m.workspace_id, kind: m.kind, attempt: m.attempt }
    if (d.outcome === 'sent') opts.log.info('mail sent', fields)
    else if (d.outcome === 'retry') {
      opts.log.warn('mail not sent; it goes again', { ...fields, error: d.error, nextAttemptAt: d.nextAttemptAt.toISOString() })
      // Looked for again when it is due, not at the next poll after.
      if (!stopping) setTimeout(wake, Math.max(0, d.nextAttemptAt.getTime() - Date.now()) + 5).unref?.()
    }
    else if (d.outcome === 'failed') opts.log.error('mail not sent, for good', { ...fields, error: d.error })
    else opts.log.info('mail dropped', { ...fields, why: d.error })
  }

  /** Mails out now; a slow mail server holds one slot, never the others. */
  const out = new Set<Promise<void>>()

  // While the database is away every poll's claim and every reaping pass fails: said once, then
  // once a minute, and when they work again (core/repeated-failure.ts).
  const claims = new RepeatedFailure(opts.log, { failed: 'mail claim failed', stillFailing: 'mail claims still failing', worksAgain: 'mail claims work again' })
  const reaping = new RepeatedFailure(opts.log, { failed: 'mail lease reaping failed', stillFailing: 'mail lease reaping still failing', worksAgain: 'mail lease reaping works again' })

  async function loop() {
    while (!stopping) {
      const seen = wakeups
      let claimed: ClaimedMail[] = []
      if (out.size < SLOTS) {
        try {
          claimed = await claimMail(opts.sql, { owner, leaseMs, paceMs: opts.settings.noticeIntervalMs, limit: SLOTS - out.size })
          claims.worked()
        } catch (error) {
          if (!stopping) claims.failed(error)
        }
      }
      for (const m of claimed) {
        const p: Promise<void> = sendOne(m)
          // Not recorded: its lease runs out and it goes again.
          .catch((error) => opts.log.error('mail not recorded', { mailId: m.id, error: withoutAddresses(error instanceof Error ? error.message : String(error)) }))
          .finally(() => {
            out.delete(p)
            wake()
          })
        out.add(p)
      }
      if (claimed.length === 0 && wakeups === seen) await sleep(POLL_MS)
    }
  }

  function sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        waker = undefined
        resolve()
      }
      waker = done
    })
  }

  const reaper = setInterval(() => {
    reapMailLeases(opts.sql).then(
      () => reaping.worked(),
      (error) => {
        if (!stopping) reaping.failed(error)
      },
    )
  }, REAP_MS)
  reaper.unref?.()
  const running = loop()

  return {
    wake,
    async stop() {
      stopping = true
      clearInterval(reaper)
      wake()
      await running
      const finished = await Promise.race([Promise.all([...out]).then(() => true), Bun.sleep(STOP_WAIT_MS).then(() => false)])
      smtp?.close()
      // Nothing is left leased to a sender that is gone, unless a mail may still be on its way.
      if (finished) await releaseMailLeases(opts.sql, owner).catch(() => {})
      else opts.log.warn('mail still out at stop; it goes again once its lease runs out', { mails: out.size })
    },
  }
}
