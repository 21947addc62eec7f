import { createTransport } from 'nodemailer'
import { MailError, type MailPort } from '../domain/mail.ts'

/**
 * The console's mail port over SMTP (nodemailer): SMTP_URL (`smtp://` with STARTTLS when the server
 * offers it, `smtps://` for TLS from the first byte) and MAIL_FROM. Each mail on a connection of
 * its own, bounded in time, so a mail server that does not answer holds one sender slot for at most
 * a minute and nothing else. A 5xx answer is a refusal for good; anything else may be retried.
 */

/** How long connecting, the greeting, and a silence in the conversation may take. */
const CONNECT_MS = 15_000
const GREETING_MS = 15_000
const SOCKET_MS = 30_000
/** The longest one mail can take, bounds included: a sender's lease outlasts it. */
export const SMTP_MAX_MS = CONNECT_MS + GREETING_MS + SOCKET_MS

export function smtpMailPort(settings: { smtpUrl: string; from: string }, opts: { ca?: string } = {}): MailPort & { close(): void } {
  const transport = createTransport({
    url: settings.smtpUrl,
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
