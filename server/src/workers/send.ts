import http from 'node:http'
import https from 'node:https'
import ipaddr from 'ipaddr.js'
import { type AddressPolicy, checkUrl, type Resolver, systemResolver } from '../domain/webhook-addresses.ts'

/**
 * One attempt to deliver: the URL checked against the private-address guard again (DNS may have
 * changed since the endpoint was saved), then a POST to the address that passed, with the host name
 * kept for TLS (SNI and the certificate) and the Host header: no second lookup. The receiver is not
 * trusted: redirects are not followed, at most a few KiB of its answer are read, and the whole
 * exchange (connecting, its headers, its body) must end within the time-out.
 */

type SendOptions = {
  timeoutMs: number
  addresses: AddressPolicy
  resolve?: Resolver
  /** Extra certificate authorities to trust (tests use their own); the system's are trusted otherwise. */
  ca?: string
}

type SendResult = {
  ok: boolean
  statusCode: number | null
  /** What went wrong, in words (null on success). */
  error: string | null
  /** The address connected to (null when none was: a refused address, a name that did not resolve). */
  address: string | null
  durationMs: number
  /** The receiver asked for no retry before this (Retry-After on a 429 or 503). */
  retryAfter: string | null
  /** The receiver said the endpoint is gone (410). */
  gone: boolean
}

/** The most of a receiver's answer read: enough to end the exchange, nothing more. */
const MAX_ANSWER_BYTES = 4096

const agents = new Map<string, http.Agent>()
function agentFor(protocol: string, ca: string | undefined): http.Agent {
  const key = `${protocol}${ca ? ':ca' : ''}`
  let agent = agents.get(key)
  if (!agent) {
    // No cap on sockets per host: each endpoint's bound and the worker's slots cap them, and a cap
    // per host would queue the sends to every endpoint of a host behind one that hangs there.
    agent = protocol === 'https:' ? new https.Agent({ keepAlive: true, ca }) : new http.Agent({ keepAlive: true })
    agents.set(key, agent)
  }
  return agent
}

export async function send(url: string, body: string, headers: Record<string, string>, opts: SendOptions): Promise<SendResult> {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  const checked = await checkUrl(url, opts.addresses, opts.resolve ?? systemResolver)
  if (!checked.ok) return { ok: false, statusCode: null, error: `Not sent: ${checked.reason}.`, address: null, durationMs: took(), retryAfter: null, gone: false }
  const address = checked.addresses[0]!
  const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4
  const target = checked.url
  const transport = target.protocol === 'https:' ? https : http
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80))

  return new Promise<SendResult>((resolve) => {
    let settled = false
    const finish = (r: Omit<SendResult, 'address' | 'durationMs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...r, address, durationMs: took() })
    }
    const fail = (error: string) => finish({ ok: false, statusCode: null, error, retryAfter: null, gone: false })
    const req = transport.request(
      {
        protocol: target.protocol,
        host: checked.host,
        port,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        agent: agentFor(target.protocol, opts.ca),
        // The connection goes to the address that passed the guard, whatever DNS says now.
        lookup: (_host: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) =>
          o?.all ? cb(null, [{ address, family }]) : cb(null, address, family),
      } as http.RequestOptions,
      (res) => {
        const status = res.statusCode ?? 0
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read >= MAX_ANSWER_BYTES) res.destroy()
        })
        const done = () => {
          const ok = status >= 200 && status < 300
          const retryAfter = status === 429 || status === 503 ? (res.headers['retry-after'] as string | undefined) ?? null : null
          finish({
            ok,
            statusCode: status,
            error: ok ? null : answerWords(status, res.headers.location),
            retryAfter,
            gone: status === 410,
          })
        }
        res.on('end', done)
        res.on('close', done)
        res.on('error', done)
      },
    )
    const timer = setTimeout(() => {
      fail(`No complete answer within ${opts.timeoutMs} ms.`)
      req.destroy()
    }, opts.timeoutMs)
    req.on('error', (err: NodeJS.ErrnoException) => fail(errorWords(err, address, port)))
    req.end(body)
  })
}

function answerWords(status: number, location: string | undefined): string {
  if (status >= 300 && status < 400) return `Answered ${status}, a redirect${location ? ` to ${location}` : ''}; redirects are not followed.`
  if (status === 410) return 'Answered 410 Gone: the endpoint is disabled.'
  return `Answered ${status}; only a 2xx is a success.`
}

function errorWords(err: NodeJS.ErrnoException, address: string, port: number): string {
  const code = err.code ?? ''
  if (code === 'ECONNREFUSED') return `Connection refused by ${address}:${port}.`
  if (code === 'ECONNRESET' || code === 'EPIPE') return `The connection to ${address}:${port} was reset.`
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${address}:${port} could not be reached (${code}).`
  if (/CERT|SSL|TLS|SELF_SIGNED|HOSTNAME|ALTNAME|ERR_TLS/i.test(`${code} ${err.message}`)) return `TLS failure: ${err.message}${code ? ` (${code})` : ''}.`
  return `The request failed: ${err.message}${code ? ` (${code})` : ''}.`
}
