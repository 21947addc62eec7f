import { createServer, type Socket } from 'node:net'
import { SMTPServer } from 'smtp-server'

/**
 * A real SMTP receiver for the mail tests (smtp-server), on 127.0.0.1 and a free port: it keeps
 * every message it accepts (sender, recipients, subject, text decoded), and refuses the next
 * messages to an address when told to (450, a failure to retry). And a mail server that never
 * answers: it takes connections and says nothing.
 */
export type Received = { from: string; to: string[]; subject: string; text: string; at: number }

export type SmtpReceiver = {
  url: string
  messages: Received[]
  /** Every message attempt to each recipient, refused ones included. */
  attempts: Map<string, number>
  /** Refuse the next `n` messages to `address` with `code` (450: try again later; 550: never). */
  refuse(address: string, n: number, code?: number): void
  /** Resolves with the messages to `address` once there are `count` of them. */
  mailTo(address: string, count?: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/** Quoted-printable to text (soft line breaks and =XX bytes); any other body as it is. */
function decodeBody(headers: string, body: string): string {
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(headers)) return body
  const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

/** A header's RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) as text; the space between two of them is not text. */
function decodeWords(value: string): string {
  return value.replace(/\?= +=\?/g, '?==?').replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, charset: string, kind: string, text: string) => {
    const bytes = kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64') : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1')
    return new TextDecoder(charset).decode(bytes)
  })
}

function parse(raw: string): { subject: string; text: string } {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const subject = decodeWords(/^subject: (.*)$/im.exec(head)?.[1] ?? '')
  return { subject, text: decodeBody(head, raw.slice(split + 4)).replace(/\r\n/g, '\n') }
}

/** `host`: the address it listens on (127.0.0.1, or another of this machine's to be a mail server across a network). */
export async function startSmtpReceiver(host = '127.0.0.1'): Promise<SmtpReceiver> {
  const messages: Received[] = []
  const attempts = new Map<string, number>()
  const refusals = new Map<string, { n: number; code: number }>()
  const waiters = new Set<() => void>()
  const server = new SMTPServer({
    authOptional: true,
    // Plain SMTP: the test receiver has no certificate a client would trust.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase())
        for (const t of to) attempts.set(t, (attempts.get(t) ?? 0) + 1)
        const refused = to.find((t) => (refusals.get(t)?.n ?? 0) > 0)
        if (refused) {
          const r = refusals.get(refused)!
          r.n--
          const words = r.code >= 500 ? `No such mailbox <${refused}>` : 'Mailbox busy, try again later'
          return callback(Object.assign(new Error(words), { responseCode: r.code }))
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
        messages.push({ from, to, ...parse(Buffer.concat(chunks).toString('utf8')), at: Date.now() })
        for (const w of waiters) w()
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()))
  const port = (server.server.address() as { port: number }).port
  return {
    url: `smtp://${host.includes(':') ? `[${host}]` : host}:${port}`,
    messages,
    attempts,
    refuse: (address, n, code = 450) => void refusals.set(address.toLowerCase(), { n, code }),
    mailTo(address, count = 1, timeoutMs = 10_000) {
      const mine = () => messages.filter((m) => m.to.includes(address.toLowerCase()))
      return new Promise((resolve, reject) => {
        const check = () => {
          if (mine().length < count) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(mine())
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`expected ${count} mail to ${address} within ${timeoutMs} ms, got ${mine().length}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A mail server that takes connections and never says a word (no greeting). */
export async function startSilentSmtp(): Promise<{ url: string; open: Set<Socket>; connected(): Promise<void>; close(): Promise<void> }> {
  const open = new Set<Socket>()
  let onConnect: (() => void) | undefined
  const server = createServer((socket) => {
    open.add(socket)
    socket.on('close', () => open.delete(socket))
    socket.on('error', () => {})
    onConnect?.()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  return {
    url: `smtp://127.0.0.1:${port}`,
    open,
    connected: () => (open.size ? Promise.resolve() : new Promise<void>((resolve) => (onConnect = resolve))),
    close: () => {
      for (const s of open) s.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
