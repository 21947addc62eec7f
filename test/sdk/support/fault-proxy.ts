import { createServer, type Server, type Socket } from 'node:net'

/**
 * A real HTTP/1.1 proxy on 127.0.0.1 in front of the test server, scripted per request: each request
 * it receives takes the next action of its script (pass through once the script is used up). It
 * speaks HTTP over plain TCP (node:net) so that it can do what a server framework will not: drop a
 * connection without any answer, after the request reached the server and its write was done.
 *
 * Every answer closes its connection (`Connection: close`), so each attempt of a client is one
 * connection, and a runtime's fetch can never retry on a reused socket behind the SDK's back.
 */
export type FaultAction =
  /** Forward the request to the server and relay its answer. */
  | { kind: 'pass' }
  /** Answer with this status and the server's error envelope, without forwarding. */
  | { kind: 'status'; status: number; code?: string; message?: string; retryAfter?: number | string }
  /**
   * Close the connection without an answer. With `forward`, only after the request went to the
   * server and its whole answer came back: the write was done, the client never heard of it. With
   * `midAnswer` (forward implied), after sending the answer's head and half its body.
   */
  | { kind: 'drop'; forward?: boolean; midAnswer?: boolean }
  /** Wait `ms`, then do `then` (pass by default) unless the client has gone meanwhile. */
  | { kind: 'delay'; ms: number; then?: FaultAction }

export type SeenRequest = {
  method: string
  /** Path and query, as the client sent them. */
  path: string
  /** The Idempotency-Key header, or null when the request had none. */
  idempotencyKey: string | null
  /** Every header, names in lower case. */
  headers: Record<string, string>
  /** When the whole request had arrived (performance.now(), ms). */
  at: number
  action: FaultAction['kind']
  /** The request id of the answer: the scripted one's, or the server's X-Request-Id. */
  requestId?: string
  /** The server's answer, when the request was forwarded (also for a dropped one). */
  upstream?: { status: number; body: string }
  /** When the client closed its side before an answer was sent (performance.now(), ms). */
  clientGoneAt?: number
}

export type FaultProxy = {
  /** http://127.0.0.1:PORT: the proxy's origin (the API is under /api/v1, as on the server). */
  url: string
  /** Replaces the script: the next requests take these actions in order, then pass through. */
  script(actions: FaultAction[]): void
  /**
   * Replaces the script with one per value of a request header: the requests carrying `value` take
   * `scripts[value]` in order, then pass through (so a request that never arrives shifts no other's).
   */
  scriptByHeader(header: string, scripts: Record<string, FaultAction[]>): void
  /** Every request seen so far, oldest first. */
  readonly seen: SeenRequest[]
  /** Milliseconds between the arrivals of consecutive requests (of `requests`, default every one seen). */
  gaps(requests?: SeenRequest[]): number[]
  stop(): Promise<void>
}

/** Reason phrases for the statuses a script answers with. */
const REASON: Record<number, string> = {
  200: 'OK', 201: 'Created', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  408: 'Request Timeout', 409: 'Conflict', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
}

/** The server's code for a status (server/src/http/answer.ts STATUS_OF; every 5xx is `internal`). */
const CODE: Record<number, string> = {
  400: 'invalid_request', 401: 'unauthorized', 402: 'plan_required', 403: 'forbidden', 404: 'not_found',
  409: 'conflict', 422: 'idempotency_key_reused', 429: 'rate_limited',
}
/** The message the server gives for a key still being answered (server/src/http/idempotency.ts). */
const IN_FLIGHT = 'A request with this Idempotency-Key is still being answered; retry shortly with the same key.'

/** Headers not relayed either way: they describe one hop (RFC 9110 7.6.1) or the body's framing, which the proxy sets itself. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'upgrade', 'content-length', 'host', 'content-encoding'])

type ParsedRequest = { method: string; path: string; headers: [string, string][]; body: Buffer }

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const seen: SeenRequest[] = []
  /** The script: one queue of actions per value of `scriptHeader` ('' when there is none). */
  let scriptHeader: string | undefined
  let queues = new Map<string, FaultAction[]>()
  let counter = 0
  const sockets = new Set<Socket>()
  /** Sockets the proxy answered or dropped itself: any other that closes, the client closed. */
  const answered = new WeakSet<Socket>()
  const timers = new Set<ReturnType<typeof setTimeout>>()

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        resolve()
      }, ms)
      timers.add(timer)
    })

  async function forward(request: ParsedRequest): Promise<{ status: number; headers: [string, string][]; body: Buffer }> {
    const headers = new Headers()
    for (const [name, value] of request.headers) if (!HOP.has(name.toLowerCase())) headers.append(name, value)
    const response = await fetch(`${upstream}${request.path}`, {
      method: request.method,
      headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(request.body),
    })
    const body = Buffer.from(await response.arrayBuffer())
    const out: [string, string][] = []
    response.headers.forEach((value, name) => {
      if (!HOP.has(name)) out.push([name, value])
    })
    return { status: response.status, headers: out, body }
  }

  function bytesOf(status: number, headers: [string, string][], body: Buffer): Buffer {
    const head = [`HTTP/1.1 ${status} ${REASON[status] ?? 'Status'}`]
    for (const [name, value] of headers) head.push(`${name}: ${value}`)
    head.push(`Content-Length: ${body.length}`, 'Connection: close', '', '')
    return Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body])
  }

  function send(socket: Socket, status: number, headers: [string, string][], body: Buffer) {
    if (socket.destroyed) return
    answered.add(socket)
    socket.end(bytesOf(status, headers, body))
  }

  async function perform(socket: Socket, request: ParsedRequest, action: FaultAction, record: SeenRequest): Promise<void> {
    switch (action.kind) {
      case 'pass': {
        const answer = await forward(request)
        record.upstream = { status: answer.status, body: answer.body.toString('utf8') }
        record.requestId = answer.headers.find(([name]) => name === 'x-request-id')?.[1]
        send(socket, answer.status, answer.headers, answer.body)
        return
      }
      case 'status': {
        const requestId = `req_proxy_${++counter}`
        record.requestId = requestId
        const code = action.code ?? CODE[action.status] ?? 'internal'
        const message = action.message ?? (action.status === 409 ? IN_FLIGHT : `Scripted ${action.status} from the fault proxy.`)
        const headers: [string, string][] = [
          ['Content-Type', 'application/json; charset=utf-8'],
          ['X-Request-Id', requestId],
        ]
        if (action.retryAfter !== undefined) headers.push(['Retry-After', String(action.retryAfter)])
        send(socket, action.status, headers, Buffer.from(JSON.stringify({ error: { code, message, requestId } })))
        return
      }
      case 'drop': {
        if (action.forward || action.midAnswer) {
          const answer = await forward(request)
          record.upstream = { status: answer.status, body: answer.body.toString('utf8') }
          if (action.midAnswer && !socket.destroyed) {
            answered.add(socket)
            // The head (with the whole body's Content-Length) and half the body, then the connection closes.
            const bytes = bytesOf(answer.status, answer.headers, answer.body)
            socket.write(bytes.subarray(0, bytes.length - Math.ceil(answer.body.length / 2)), () => socket.destroy())
            return
          }
        }
        answered.add(socket)
        socket.destroy()
        return
      }
      case 'delay': {
        await sleep(action.ms)
        if (socket.destroyed || record.clientGoneAt !== undefined) return
        return perform(socket, request, action.then ?? { kind: 'pass' }, record)
      }
    }
  }

  function handle(socket: Socket, request: ParsedRequest) {
    const headers = Object.fromEntries(request.headers.map(([name, value]) => [name.toLowerCase(), value]))
    const action = queues.get(scriptHeader === undefined ? '' : (headers[scriptHeader] ?? ''))?.shift() ?? { kind: 'pass' }
    const record: SeenRequest = {
      method: request.method,
      path: request.path,
      idempotencyKey: headers['idempotency-key'] ?? null,
      headers,
      at: performance.now(),
      action: action.kind,
    }
    seen.push(record)
    let done = false
    socket.once('close', () => {
      if (!done) record.clientGoneAt = performance.now()
    })
    perform(socket, request, action, record)
      .catch((err: unknown) => {
      // The proxy's own failure (e.g. the server is away): say so in a 502 the test will see.
        send(socket, 502, [['Content-Type', 'text/plain']], Buffer.from(`fault proxy: ${String(err)}`))
      })
      .finally(() => {
        done = true
      })
  }

  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let buffered = Buffer.alloc(0)
    let handled = false
    socket.on('data', (chunk: Buffer) => {
      if (handled) return
      buffered = Buffer.concat([buffered, chunk])
      const parsed = parseRequest(buffered)
      if (parsed === 'incomplete') return
      handled = true
      if (parsed instanceof Error) {
        send(socket, 400, [['Content-Type', 'text/plain']], Buffer.from(`fault proxy: ${parsed.message}`))
        return
      }
      handle(socket, parsed)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('fault proxy: no TCP address')

  return {
    url: `http://127.0.0.1:${address.port}`,
    script(next) {
      scriptHeader = undefined
      queues = new Map([['', [...next]]])
    },
    scriptByHeader(header, scripts) {
      scriptHeader = header.toLowerCase()
      queues = new Map(Object.entries(scripts).map(([value, next]) => [value, [...next]]))
    },
    seen,
    gaps(requests = seen) {
      return requests.slice(1).map((r, i) => r.at - requests[i]!.at)
    },
    async stop() {
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** One HTTP/1.1 request from the bytes received so far: its head, then Content-Length bytes of body. */
function parseRequest(bytes: Buffer): ParsedRequest | 'incomplete' | Error {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) return 'incomplete'
  const [requestLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n')
  const [method, path] = requestLine!.split(' ')
  if (!method || !path) return new Error(`malformed request line ${JSON.stringify(requestLine)}`)
  const headers: [string, string][] = []
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()])
  }
  const value = (name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1]
  if (value('transfer-encoding')) return new Error('chunked request bodies are not supported; send Content-Length')
  const length = Number(value('content-length') ?? 0)
  if (!Number.isInteger(length) || length < 0) return new Error('bad Content-Length')
  if (bytes.length < end + 4 + length) return 'incomplete'
  return { method, path, headers, body: bytes.subarray(end + 4, end + 4 + length) }
}
