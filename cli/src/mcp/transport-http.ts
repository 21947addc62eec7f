import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { refusedSecret } from './http-secret.ts'
import { createMcpServer, Pending } from './server.ts'
import type { Toolbox } from './tool.ts'

/**
 * `growth mcp --http PORT`: the MCP Streamable HTTP transport at /mcp, one MCP session per client
 * (the SDK's web-standard transport, served by Bun). Bound to 127.0.0.1 unless --host says
 * otherwise. Every request must carry the server's secret (`Authorization: Bearer <secret>`,
 * http-secret.ts): without it, any local process could act with the token. On a loopback address a
 * request must also name a loopback host (Host) and come from no web page but a local one (Origin):
 * a page on another site cannot reach the server through DNS rebinding.
 */

const MCP_PATH = '/mcp'

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]', '::1']

export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host)
}

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers })
}

/** Host and Origin, on a loopback address: the request comes from this machine's own clients. */
function refusedOrigin(request: Request): string | undefined {
  const hostHeader = request.headers.get('host') ?? ''
  const hostname = hostHeader.replace(/:\d+$/, '')
  if (!isLoopback(hostname)) return `Host ${JSON.stringify(hostHeader)} is not this machine: growth mcp on a loopback address answers only localhost, 127.0.0.1 and [::1].`
  const origin = request.headers.get('origin')
  // A client that is not a browser sends none; a page sends its own (`null` from a sandboxed frame or a file).
  if (origin) {
    let originHost = ''
    try {
      originHost = new URL(origin).hostname
    } catch {
      // not a URL: refused below
    }
    if (!isLoopback(originHost) && !isLoopback(`[${originHost}]`)) return `Origin ${origin} may not use growth mcp: only pages served from this machine may.`
  }
  return undefined
}

type HttpServer = { url: string; stop(): Promise<void> }

/** A session no request has used for this long is ended (--session-idle): a client that went away without closing it. */
const DEFAULT_SESSION_IDLE_MS = 30 * 60_000

export function serveHttp(toolbox: Toolbox, opts: { host: string; port: number; secret: string; sessionIdleMs?: number }): HttpServer {
  const pending = new Pending()
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()
  /** When each session was last used; a session idle past sessionIdleMs, with no call under way, is closed. */
  const lastUsed = new Map<string, number>()
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS
  const loopback = isLoopback(opts.host)
  // A client that abandons its session (crashed, killed, never sent DELETE) would otherwise hold its
  // server and transport until this process ends. Ended, its next request gets 404 and, as the MCP
  // specification has clients do, it initializes a new session.
  const sweep = setInterval(() => {
    const now = Date.now()
    for (const [id, transport] of sessions) {
      if (now - (lastUsed.get(id) ?? now) >= idleMs && !pending.busy(transport)) void transport.close().catch(() => {})
    }
  }, Math.max(50, Math.min(60_000, Math.floor(idleMs / 4))))
  sweep.unref?.()

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname !== MCP_PATH) return rpcError(404, -32601, `Not found: the MCP endpoint is ${MCP_PATH}.`)
    if (loopback) {
      const refused = refusedOrigin(request)
      if (refused) return rpcError(403, -32600, refused)
    }
    const unauthorized = refusedSecret(request.headers.get('authorization'), opts.secret)
    if (unauthorized) return rpcError(401, -32001, unauthorized, { 'www-authenticate': 'Bearer realm="growth mcp"' })
    const sessionId = request.headers.get('mcp-session-id')
    if (sessionId) {
      const transport = sessions.get(sessionId)
      if (!transport) return rpcError(404, -32001, `No session ${sessionId} (it ended, was idle too long, or this server restarted): initialize a new one.`)
      lastUsed.set(sessionId, Date.now())
      return transport.handleRequest(request)
    }
    if (request.method !== 'POST') return rpcError(400, -32000, 'No Mcp-Session-Id: send an initialize request first (POST).')
    let body: unknown
    try {
      body = await request.json()
    } catch {
      return rpcError(400, -32700, 'Parse error: the body is not JSON.')
    }
    const initializing = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body)
    if (!initializing) return rpcError(400, -32000, 'No Mcp-Session-Id: send an initialize request first.')
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport)
        lastUsed.set(id, Date.now())
      },
    })
    transport.onclose = () => {
      if (transport.sessionId) {
        sessions.delete(transport.sessionId)
        lastUsed.delete(transport.sessionId)
      }
    }
    const server = createMcpServer(toolbox)
    await server.connect(transport)
    pending.watch(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }

  const bun = Bun.serve({
    hostname: opts.host,
    port: opts.port,
    // SSE streams stay open between events (the transport writes a keep-alive comment every 15 s).
    idleTimeout: 0,
    async fetch(request) {
      try {
        return await handle(request)
      } catch (err) {
        return rpcError(500, -32603, `Internal error: ${(err as Error).message}`)
      }
    },
  })
  const shown = opts.host.includes(':') && !opts.host.startsWith('[') ? `[${opts.host}]` : opts.host
  return {
    url: `http://${shown}:${bun.port}${MCP_PATH}`,
    /** Answers the calls under way (for up to 10 s), then ends every session and stops serving. */
    async stop() {
      clearInterval(sweep)
      await pending.idle(10_000)
      // The last answers are written to their streams; give them a moment to leave.
      await Bun.sleep(50)
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})))
      await bun.stop(true)
    },
  }
}
