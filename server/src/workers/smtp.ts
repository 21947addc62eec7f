import ipaddr from 'ipaddr.js'
import { createTransport } from 'nodemailer'
import { MailError, type MailPort } from '../domain/mail.ts'

/**
 * The console's mail port over SMTP (nodemailer): SMTP_URL (`smtp://` with STARTTLS, `smtps://` for
 * TLS from the first byte) and MAIL_FROM. STARTTLS is required, not taken when offered: a network
 * attacker could strip the offer and read the SMTP password and the sign-in links the mail carries.
 * Only a mail server on this machine (a loopback address or localhost) may go without it, and an
 * operator whose relay on a trusted network has no TLS says so with `?requireTLS=false` in the URL
 * (docs/console.md, "Mail"). Each mail on a connection of
 * its own, bounded in time, so a mail server that does not answer holds one sender slot for at most
 * a minute and nothing else. A 5xx answer is a refusal for good; anything else may be retried.
 */

/** How long connecting, the greeting, and a silence in the conversation may take. */
const CONNECT_MS = 15_000
const GREETING_MS = 15_000
const SOCKET_MS = 30_000
/** The longest one mail can take, bounds included: a sender's lease outlasts it. */
export const SMTP_MAX_MS = CONNECT_MS + GREETING_MS + SOCKET_MS

/** A host name that is this machine: mail to it never crosses a network. */
function onThisMachine(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost')) return true
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback'
}

export function smtpMailPort(settings: { smtpUrl: string; from: string }, opts: { ca?: string } = {}): MailPort & { close(): void } {
  const transport = createTransport({
    url: settings.smtpUrl,
    // The URL's own `?requireTLS=false` wins over this (nodemailer reads the URL's options last).
    requireTLS: !onThisMachine(new URL(settings.smtpUrl).hostname),
    connectionTimeout: CONNECT_MS,
    greetingTimeout: GREETING_MS,
    socketTimeout: SOCKET_MS,
    // Tests trust their own certificate authority; otherwise the system's.
    ...(opts.ca ? { tls: { ca: opts.ca } } : {}),
  })
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text })
      } catch (err) {
        const e = err as Error & { responseCode?: number; permanent?: boolean; code?: string }
        const permanent = e.permanent === true || (typeof e.responseCode === 'number' && e.responseCode >= 500)
        throw new MailError(`${e.code ? `${e.code}: ` : ''}${e.message}`, permanent)
      }
    },
    close: () => transport.close(),
  }
}
