import { basename } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { type CallToolResult, CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  type AgentAuthorization,
  ApprovalExpiredError,
  ApprovalRejectedError,
  ApprovalRequiredError,
  clip,
  decide,
  decidedByName,
  deniedError,
  type Growth,
  GrowthError,
  oneLine,
  type WaitForApproval,
} from '@growth-service/sdk'
import { type GuardConfig, mappingOf, MissingArgument, requestFor } from './config.ts'
import { reportQueue } from './reports.ts'
import { tracedToolCall } from './trace.ts'

type GuardSettings = {
  config: GuardConfig
  /** Where the configuration came from, for messages. */
  configFile: string
  command: string
  args: string[]
  agent: Growth['agent']
  /** False: a call that needs a person is answered at once with the approvalId. */
  waitForApproval: false | WaitForApproval
  /** How long a shutdown waits for the result reports still owed. */
  flushMs: number
  version: string
  log: (line: string) => void
}

/** How long an upstream tool call may take (the client's own time-out usually comes first). */
const UPSTREAM_TIMEOUT_MS = 60 * 60_000

/** Where the guard's own details ride on a tool result it answers itself. */
const META_KEY = 'growth-service/guard'

/**
 * growth mcp guard: an MCP server on stdio in front of another MCP server (started as a child
 * process on its own stdio). Tools are listed as the upstream lists them; every tools/call is first
 * asked of the agent gateway, and only an `allowed` call reaches the upstream. What became of it is
 * reported once the answer has gone back (completed, or failed with the upstream's error). Resolves
 * once the client has gone (stdin closed), or on SIGINT/SIGTERM, after the reports owed are sent.
 */
export async function runGuard(s: GuardSettings): Promise<void> {
  const upstream = new Client({ name: 'growth-mcp-guard', version: s.version })
  const transport = new StdioClientTransport({ command: s.command, args: s.args, env: upstreamEnv(), stderr: 'inherit' })
  try {
    await upstream.connect(transport)
  } catch (err) {
    throw new Error(`cannot start the upstream MCP server ${[s.command, ...s.args].join(' ')}: ${(err as Error).message}`)
  }
  await announce(s, upstream)

  const reports = reportQueue(s.agent, (line) => s.log(line))
  const inflight = new Set<Promise<unknown>>()
  const server = new Server(
    { name: 'growth-mcp-guard', version: s.version },
    { capabilities: { tools: {} }, ...(upstream.getInstructions() ? { instructions: upstream.getInstructions() } : {}) },
  )
  server.setRequestHandler(ListToolsRequestSchema, (request) => upstream.request({ method: 'tools/list', params: request.params }, ListToolsResultSchema))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const call = tracedToolCall(request.params, (params) => guardedCall(s, upstream, reports, request.params.name, request.params.arguments ?? {}, params, extra.signal))
    inflight.add(call)
    return call.finally(() => inflight.delete(call))
  })

  let finish = () => {}
  const finished = new Promise<void>((resolve) => (finish = resolve))
  const stdinGone = () => finish()
  process.stdin.once('end', stdinGone)
  process.stdin.once('close', stdinGone)
  process.once('SIGINT', finish)
  process.once('SIGTERM', finish)
  upstream.onclose = () => {
    s.log(`the upstream MCP server ${upstreamName(s)} has exited`)
    finish()
  }
  await server.connect(new StdioServerTransport())
  await finished

  // The client has gone: answer what is in flight, send the reports owed, then stop the upstream. A
  // client that signals again while this lasts (bounded by flushMs) does not cut it short.
  const holdOn = () => s.log(`still sending ${reports.pending} result report(s); exiting within ${s.flushMs} ms`)
  process.on('SIGINT', holdOn)
  process.on('SIGTERM', holdOn)
  await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, s.flushMs))])
  // Closing the server cancels the calls still running, which then report themselves cancelled:
  // close first, then send every report owed, those included.
  upstream.onclose = undefined
  await server.close().catch(() => {})
  await upstream.close().catch(() => {})
  await Promise.race([Promise.allSettled([...inflight]), new Promise((r) => setTimeout(r, s.flushMs))])
  await reports.flush(s.flushMs)
  process.off('SIGINT', holdOn)
  process.off('SIGTERM', holdOn)
}

/** The environment the upstream starts with: the guard's own, less the agent's credential. */
function upstreamEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== 'GROWTH_TOKEN') env[name] = value
  return env
}

/** The upstream as a person recognises it: its program's name and its arguments. */
function upstreamName(s: GuardSettings): string {
  return [basename(s.command), ...s.args].join(' ')
}

/** Says on stderr which upstream tools are guarded as what, which are refused, and which mappings find no tool. */
async function announce(s: GuardSettings, upstream: Client) {
  const names: string[] = []
  let cursor: string | undefined
  do {
    const page = await upstream.listTools(cursor ? { cursor } : undefined)
    names.push(...page.tools.map((t) => t.name))
    cursor = page.nextCursor
  } while (cursor)
  const guarded = names.filter((n) => mappingOf(s.config, n))
  const refused = names.filter((n) => !mappingOf(s.config, n))
  const missing = Object.keys(s.config.tools).filter((n) => !names.includes(n))
  s.log(`guarding ${upstreamName(s)}: ${guarded.map((n) => `${n} as ${mappingOf(s.config, n)!.tool}.${mappingOf(s.config, n)!.action}`).join(', ') || 'no tool'}`)
  if (refused.length) s.log(`refusing ${refused.join(', ')}: not mapped in ${s.configFile}, so never passed through`)
  if (missing.length) s.log(`${s.configFile} maps ${missing.join(', ')}, which ${s.command} does not offer`)
}

/**
 * The call's arguments a refusal is about: the gateway names `facts.amountPercent`, the model wrote
 * `percent`, so the facts it names that the mapping reads from a path are tied to that path.
 */
function argumentsNamed(mapping: NonNullable<ReturnType<typeof mappingOf>>, message: string): string {
  const read = Object.entries(mapping.facts ?? {}).filter(([fact, v]) => typeof v === 'string' && v.startsWith('$') && new RegExp(`\\bfacts\\.${fact}\\b`).test(message))
  return read.map(([fact, path]) => ` The guard reads facts.${fact} from the call's argument ${path}.`).join('')
}

async function guardedCall(
  s: GuardSettings,
  upstream: Client,
  reports: ReturnType<typeof reportQueue>,
  name: string,
  args: Record<string, unknown>,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const mapping = mappingOf(s.config, name)
  if (!mapping) {
    return refusal(`The tool ${name} is not mapped in the guard's configuration, so it is refused and never reaches the server. Ask the owner to map it to a gateway tool and action in ${s.configFile}.`, { decision: 'unmapped' })
  }
  let authorization: AgentAuthorization
  try {
    authorization = await decide(s.agent, requestFor(name, mapping, args), { waitForApproval: s.waitForApproval || undefined, signal })
  } catch (err) {
    if (err instanceof MissingArgument) return refusal(`The guard cannot ask the gateway about ${name}: ${err.message}.`, { decision: 'unreadable' })
    if (err instanceof ApprovalRequiredError) return waitingRefusal(name, err)
    if (err instanceof GrowthError) {
      const where = err.status === undefined ? 'could not be reached' : `refused the request (${err.status} ${err.code})`
      const said = err.message.replace(/\.$/, '')
      return refusal(
        `The agent gateway ${where}: ${said}${err.requestId ? ` (request ${err.requestId})` : ''}.${argumentsNamed(mapping, said)} ${name} was not run.`,
        { decision: 'error', code: err.code ?? null, requestId: err.requestId ?? null },
      )
    }
    throw err
  }
  const facts = { decision: authorization.decision, authorizationId: authorization.authorizationId, reason: authorization.reason }
  if (!authorization.mayProceed) {
    const denial = deniedError(authorization)
    if (denial instanceof ApprovalRejectedError) return rejectedRefusal(name, denial)
    const failed = authorization.checks.filter((c) => !c.passed).map((c) => `- ${c.name}: ${c.detail}`)
    return refusal([`The agent gateway denied ${name}; it was not run. ${authorization.reason}`, ...(failed.length ? ['Checks that failed:', ...failed] : [])].join('\n'), { ...facts, checks: authorization.checks })
  }

  let result: CallToolResult
  try {
    // The client's cancellation is passed on to the upstream; the upstream's own time-out is long (a
    // guarded tool may be slow), the client keeps its own.
    result = (await upstream.request({ method: 'tools/call', params }, CallToolResultSchema, { signal, timeout: UPSTREAM_TIMEOUT_MS })) as CallToolResult
  } catch (err) {
    if (signal.aborted) reports.add({ authorizationId: authorization.authorizationId, status: 'cancelled', summary: 'The client cancelled the call.' }, authorization.expiresAt)
    else reports.add({ authorizationId: authorization.authorizationId, status: 'failed', error: clip(`${(err as Error).name}: ${(err as Error).message}`, 2000) }, authorization.expiresAt)
    throw err
  }
  const text = textOf(result)
  if (result.isError) reports.add({ authorizationId: authorization.authorizationId, status: 'failed', error: clip(text || `${name} answered with an error and no text.`, 2000) }, authorization.expiresAt)
  else reports.add({ authorizationId: authorization.authorizationId, status: 'completed', ...(text ? { summary: clip(text, 500) } : {}) }, authorization.expiresAt)
  // Run under a person's approval that came with a note: the model reads the note after the answer,
  // as request_permission gives it.
  const approved = authorization.approvalDecision?.status === 'approved' ? authorization.approvalDecision : undefined
  if (approved?.reason) {
    const note = `${decidedByName(approved.decidedBy)} approved this call (approval ${approved.approvalId}) with the note ${JSON.stringify(approved.reason)}.`
    return { ...result, content: [...(result.content ?? []), { type: 'text', text: note }] }
  }
  return result
}

/** A person (or an operator) rejected this very call: the model reads who, and the reason they gave. */
function rejectedRefusal(name: string, err: ApprovalRejectedError): CallToolResult {
  const said = err.decisionReason ? ` Their reason: ${JSON.stringify(err.decisionReason)}.` : ' They gave no reason.'
  return refusal(
    `${name} was not run: ${decidedByName(err.decidedBy)} rejected it (approval ${err.approvalId}).${said} Do not make the same call again: it stays refused until the approval would have expired, 24 hours after it was asked. Tell the user, or ask for something else.`,
    {
      decision: 'denied', authorizationId: err.authorizationId, approvalId: err.approvalId, rejected: true,
      decidedBy: err.decidedBy, decidedAt: err.decidedAt, decisionReason: err.decisionReason, reason: err.gatewayReason,
    },
  )
}

function waitingRefusal(name: string, err: ApprovalRequiredError): CallToolResult {
  const facts = { decision: 'requires_approval', authorizationId: err.authorizationId, approvalId: err.approvalId, reason: err.reason }
  if (err instanceof ApprovalExpiredError) {
    return refusal(`${name} was not run: ${err.message} Ask again to keep waiting for a person.`, { ...facts, timedOut: false, expired: true, expiredApprovalId: err.expiredApprovalId })
  }
  if (err.timedOut || err.expired) return refusal(`${name} was not run: ${err.message} Ask again to keep waiting.`, { ...facts, timedOut: err.timedOut, expired: err.expired })
  return refusal(
    `${name} was not run: a person must approve it first (approval ${err.approvalId}). ${err.reason} A person of the workspace decides it, in the console's inbox: do not try to decide it yourself. Once it is approved, make the same call again and it runs once.`,
    facts,
  )
}

function refusal(text: string, details: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], _meta: { [META_KEY]: details } }
}

/** The text of a tool result, on one line. */
function textOf(result: CallToolResult): string {
  const parts = (result.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
  if (!parts.length && result.structuredContent) parts.push(JSON.stringify(result.structuredContent))
  return oneLine(parts.join(' '))
}
