import type { Command } from 'commander'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { Growth } from '@growth-service/sdk'
import { addCredentialOptions, type CredentialOptions, resolveCredentials } from '../api/credentials.ts'
import { maskToken } from '../api/profiles.ts'
import { CliError } from '../errors.ts'
import { parseDuration } from '../../../server/src/core/time.ts'
import { writeErr } from '../output.ts'
import { agentToolbox } from './agent-tools.ts'
import { createMcpServer, Pending } from './server.ts'
import type { Toolbox } from './tool.ts'
import { workspaceToolbox } from './tools.ts'
import { type HttpSecret, newSecret, readSecretFile } from './http-secret.ts'
import { isLoopback, serveHttp } from './transport-http.ts'

/**
 * growth mcp: the API as MCP tools, for an AI client (Claude, ChatGPT, Cursor, an IDE's agent).
 * Over stdio by default (what a desktop client starts), or Streamable HTTP with --http PORT. The
 * credential comes as every command's does (--token, GROWTH_TOKEN, a profile); its kind decides the
 * tools: a workspace token gets one tool per operation its scopes open (tools.ts), an agent
 * credential the gateway's tools (agent-tools.ts). stdout carries the protocol alone (over stdio);
 * what a person should know goes to stderr, which desktop clients keep in their logs.
 */

type McpOptions = CredentialOptions & { http?: string; host: string; sessionIdle: string; httpSecretFile?: string }

function portOf(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) > 65_535) throw new CliError(`--http takes a port number, 0 to 65535 (0: any free port); got ${JSON.stringify(text)}`)
  return Number(text)
}

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM), or with `also`. */
function stopRequested(also?: Promise<string>): Promise<string> {
  return Promise.race([
    new Promise<string>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'))
      process.once('SIGINT', () => resolve('SIGINT'))
    }),
    ...(also ? [also] : []),
  ])
}

async function toolboxFor(opts: McpOptions): Promise<Toolbox> {
  const credentials = resolveCredentials(opts)
  // One client for every call: the SDK's retries, errors and Idempotency-Keys, as the CLI's commands have them.
  const growth = new Growth({ token: credentials.token, baseUrl: credentials.baseUrl })
  const toolbox = credentials.token.startsWith('svc_agt_') ? await agentToolbox(growth, credentials) : await workspaceToolbox(growth, credentials)
  return { ...toolbox, summary: `${toolbox.summary}; ${maskToken(credentials.token)} from ${credentials.source}, API at ${credentials.baseUrl}` }
}

async function run(opts: McpOptions) {
  const port = opts.http === undefined ? undefined : portOf(opts.http)
  const sessionIdleMs = parseDuration(opts.sessionIdle)
  if (sessionIdleMs === undefined || sessionIdleMs < 1000) {
    throw new CliError(`--session-idle takes a duration of at least 1s, e.g. 30m, 2h, 90s; got ${JSON.stringify(opts.sessionIdle)}`)
  }
  if (opts.httpSecretFile !== undefined && port === undefined) throw new CliError('--http-secret-file is for --http: over stdio the client that starts growth mcp is the only one it answers')
  // Beyond this machine, a secret printed on one terminal for one run is not enough: a kept one, given on purpose.
  if (port !== undefined && !isLoopback(opts.host) && opts.httpSecretFile === undefined) {
    throw new CliError(`--host ${opts.host} serves beyond this machine: give the secret clients must send with --http-secret-file FILE (a file only you can read), and put TLS in front (the secret travels in every request)`)
  }
  const secret: HttpSecret | undefined = port === undefined ? undefined : opts.httpSecretFile !== undefined ? readSecretFile(opts.httpSecretFile) : newSecret()
  const toolbox = await toolboxFor(opts)

  if (port !== undefined && secret) {
    let http: ReturnType<typeof serveHttp>
    try {
      http = serveHttp(toolbox, { host: opts.host, port, secret: secret.value, sessionIdleMs })
    } catch (err) {
      // A port in use, an address this machine does not have: the person's to change.
      throw new CliError(`cannot serve on ${opts.host}:${port}: ${(err as Error).message}`)
    }
    writeErr(`growth mcp: ${toolbox.summary}\n`)
    if (!isLoopback(opts.host)) writeErr(`growth mcp: warning: bound to ${opts.host}, not this machine alone: whoever has the secret acts with this credential, and plain HTTP carries it in every request (put TLS in front).\n`)
    writeErr(`growth mcp: serving MCP (Streamable HTTP) at ${http.url}; stop with Ctrl-C or SIGTERM\n`)
    if (secret.source === 'made for this run') {
      // Printed this once: the client needs it, and nothing else shows it.
      writeErr(`growth mcp: clients must send the header: Authorization: Bearer ${secret.value}\n`)
      writeErr('growth mcp: (a secret made for this run; --http-secret-file FILE keeps one across runs)\n')
    } else {
      writeErr(`growth mcp: clients must send the header Authorization: Bearer <the secret in ${secret.source}>\n`)
    }
    await stopRequested()
    await http.stop()
    return
  }

  const server = createMcpServer(toolbox)
  const transport = new StdioServerTransport()
  const pending = new Pending()
  // The client closing our stdin is how it ends the session (the specification's stdio shutdown):
  // answer what is under way, then exit.
  const stdinEnded = new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('end of input'))
    process.stdin.once('close', () => resolve('end of input'))
  })
  const closed = new Promise<string>((resolve) => (server.onclose = () => resolve('closed')))
  await server.connect(transport)
  pending.watch(transport)
  writeErr(`growth mcp: ${toolbox.summary}; serving MCP over stdio\n`)
  await stopRequested(Promise.race([stdinEnded, closed]))
  await pending.idle(30_000)
  await server.close().catch(() => {})
}

/**
 * Adds `growth mcp` to the program and returns it, so that subcommands (`growth mcp guard`) can be
 * attached with `.command(...)` or `.addCommand(...)`. Its options are positional: those after a
 * subcommand's name are the subcommand's own.
 */
export function registerMcp(program: Command): Command {
  return addCredentialOptions(program.command('mcp'), { token: 'the credential: a workspace token (svc_live_, svc_test_) or an agent credential (svc_agt_) (default: GROWTH_TOKEN, then the profile)' })
    .description('serve the API as MCP tools to an AI client (Claude, ChatGPT, Cursor): over stdio, or Streamable HTTP with --http')
    .enablePositionalOptions()
    .option('--http <port>', 'serve MCP over Streamable HTTP on this port, at /mcp (0: any free port), instead of stdio')
    .option('--host <address>', 'the address --http binds', '127.0.0.1')
    .option('--http-secret-file <file>', 'with --http: the secret clients must send (Authorization: Bearer <secret>), read from this file only its owner can read (chmod 600); default: one made for this run and printed once')
    .option('--session-idle <duration>', 'with --http: end a session no request has used for this long (a client that went away without closing it), e.g. 30m, 2h', '30m')
    .addHelpText(
      'after',
      [
        '',
        'A workspace token gets one tool per operation its scopes open (named by operationId); an agent',
        'credential gets request_permission, report_result and my_profile. See docs/mcp.md.',
        '',
        'A desktop client starts it as: {"command": "growth", "args": ["mcp"], "env": {"GROWTH_TOKEN": "svc_..."}}',
        '',
        'Over HTTP, clients send Authorization: Bearer <secret>: the secret printed at start (made for the run),',
        'or the one in --http-secret-file. A --host beyond loopback needs --http-secret-file.',
        '',
      ].join('\n'),
    )
    .action((opts: McpOptions) => run(opts))
}
