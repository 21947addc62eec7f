import { ConnectionError, type Growth, GrowthError, isSimulated, type Page, TimeoutError } from '@growth-service/sdk'
import type { Credentials } from '../api/credentials.ts'
import { methodOf } from '../api/commands.ts'
import { canonicalJson } from '../../../server/src/core/canonical-json.ts'
import { answer, failureOf, lines, text } from './format.ts'
import { CURSOR, type DeclaredOperation, declaredOperations, TOOL_LIMIT } from './schema.ts'
import { probeScopes } from './scopes.ts'
import { newIdempotencyKey, type McpTool, type Toolbox } from './tool.ts'

/**
 * A workspace token's tools: one per operation its scopes open, named by the operationId, described
 * by the operation's summary and description, its arguments the operation's query parameters or
 * body members (schema.ts). Every call goes through the SDK, as the CLI's commands do: its retries,
 * its errors with code, message and request id, one Idempotency-Key per write (here, per tools/call).
 */

type Call = (arg: unknown, options?: { idempotencyKey?: string; signal?: AbortSignal }) => {
  withResponse(): Promise<{ data: unknown; requestId: string | undefined; replayed: boolean }>
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

function listTool(op: DeclaredOperation, call: Call): McpTool['call'] {
  const paging = op.spec.paging!
  return async (args, signal) => {
    const query: Record<string, unknown> = { limit: Math.min(TOOL_LIMIT, paging.defaultLimit), ...args }
    delete query[CURSOR]
    if (args[CURSOR] !== undefined) query[paging.param] = args[CURSOR]
    try {
      const { data: page, requestId } = await call(query, { signal }).withResponse()
      const { data, meta } = page as Page<unknown>
      const hasMore = (page as Page<unknown>).hasNextPage()
      const position = meta?.[paging.next] ?? null
      const next = hasMore
        ? `More: call ${op.operationId} again with cursor "${position}" for the next page.`
        : position && paging.stream
          ? `That is all for now; newer items come after cursor "${position}".`
          : 'That is the end of the list.'
      return answer(
        { data, nextCursor: position, hasMore, requestId: requestId ?? null },
        text([`${plural(data.length, 'item')}${data.length ? ':' : '.'}`, lines(data), next]),
      )
    } catch (err) {
      return failureOf(err)
    }
  }
}

function itemTool(call: Call): McpTool['call'] {
  return async (args, signal) => {
    try {
      const { data, requestId } = await call(args, { signal }).withResponse()
      return answer({ data, requestId: requestId ?? null }, text(lines(data)))
    } catch (err) {
      return failureOf(err)
    }
  }
}

/** How long a write whose outcome is unknown keeps its Idempotency-Key for a call with the same arguments. */
const UNKNOWN_OUTCOME_MS = 60 * 60_000

/** Whether a failed write may have been done: no answer, or the server's own failure, or still being answered. */
function outcomeUnknown(err: unknown): boolean {
  if (err instanceof TimeoutError || err instanceof ConnectionError) return true
  return err instanceof GrowthError && err.status !== undefined && (err.status >= 500 || err.status === 409)
}

/**
 * One Idempotency-Key per write, except after a failure that leaves its outcome unknown (no
 * answer, a 5xx, a 409 still being answered): a model's retry with the same arguments is sent under
 * the same key, so the write is done at most once (a replay if it had been done). A success or a
 * refusal forgets it: a later call with the same arguments is a new write.
 */
function writeTool(op: DeclaredOperation, call: Call): McpTool['call'] {
  const unknown = new Map<string, { key: string; until: number }>()
  return async (args, signal) => {
    const now = Date.now()
    for (const [k, v] of unknown) if (v.until <= now) unknown.delete(k)
    // The same arguments whatever the order of their members (a model may write them either way).
    const sameArgs = canonicalJson(args)
    const idempotencyKey = unknown.get(sameArgs)?.key ?? newIdempotencyKey()
    unknown.delete(sameArgs)
    try {
      const { data, requestId, replayed } = await call(args, { idempotencyKey, signal }).withResponse()
      const simulated = isSimulated(data)
      const head = simulated
        ? `Simulated with a test token: every check passed and nothing was recorded (${op.summary}; Idempotency-Key ${idempotencyKey}).`
        : `${op.summary}: done${replayed ? ' (answered again for the same Idempotency-Key: done once)' : ''}. Idempotency-Key ${idempotencyKey}.`
      return answer({ data, simulated, idempotencyKey, replayed, requestId: requestId ?? null }, text([head, !simulated && lines(data)]))
    } catch (err) {
      const failed = failureOf(err)
      if (!outcomeUnknown(err)) return failed
      unknown.set(sameArgs, { key: idempotencyKey, until: now + UNKNOWN_OUTCOME_MS })
      ;(failed.structuredContent as { error: Record<string, unknown> }).error.idempotencyKey = idempotencyKey
      failed.content.push({ type: 'text', text: `It may or may not have been done. Calling this tool again with the same arguments sends it again under the same Idempotency-Key (${idempotencyKey}), so it is done at most once.` })
      return failed
    }
  }
}

/** The description a model reads: the document's, and how this tool pages or writes. */
function descriptionOf(op: DeclaredOperation, mode: 'live' | 'test'): string {
  const extra =
    op.spec.kind === 'list'
      ? `Pages: up to limit items (default ${Math.min(TOOL_LIMIT, op.spec.paging!.defaultLimit)}); pass an answer's nextCursor as cursor for the next page.`
      : op.spec.kind === 'write'
        ? mode === 'test'
          ? 'With this test token the write is checked like a live one, then only simulated: nothing is recorded.'
          : 'Each call is one write, sent with an Idempotency-Key of its own.'
        : undefined
  return [`${op.summary}.`, op.description, extra].filter(Boolean).join('\n\n')
}

function workspaceTool(growth: Growth, op: DeclaredOperation, mode: 'live' | 'test'): McpTool {
  const call = methodOf<Call>(growth, op.spec.sdk)
  const read = op.spec.kind !== 'write'
  return {
    name: op.operationId,
    title: op.summary,
    description: descriptionOf(op, mode),
    inputSchema: op.inputSchema,
    outputSchema: op.outputSchema,
    annotations: { title: op.summary, readOnlyHint: read, openWorldHint: false, ...(read ? {} : { idempotentHint: false }) },
    argumentCode: read ? 'invalid_parameter' : 'invalid_request',
    call: op.spec.kind === 'list' ? listTool(op, call) : op.spec.kind === 'item' ? itemTool(call) : writeTool(op, call),
  }
}

/** The tools of a workspace token: those of the operations its scopes open. */
export async function workspaceToolbox(growth: Growth, credentials: Credentials): Promise<Toolbox> {
  const mode = credentials.token.startsWith('svc_test_') ? 'test' : 'live'
  const operations = declaredOperations().filter((op) => op.caller === 'workspace')
  const scopes = await probeScopes(credentials, operations)
  const open = operations.filter((op) => scopes.has(op.scope!))
  const tools = open.map((op) => workspaceTool(growth, op, mode))
  const held = [...scopes].sort()
  const instructions = [
    `The Growth Automation Service API at ${credentials.baseUrl}, as tools, with a ${mode} workspace token (scopes: ${held.join(', ') || 'none'}).`,
    'Each tool is one operation of the API, named by its operationId. Lists answer a page at a time: pass the nextCursor of an answer as cursor to get the next page.',
    'Money is in minor units in the structured content (amountMinor with its currency) and in the currency\'s own format in the text. Ids (dec_..., cmp_..., apr_...) are what other tools take.',
    mode === 'test' ? 'This is a test token: reads are real, writes are checked and then only simulated; nothing is recorded.' : 'Writes are real: each call is done once (an Idempotency-Key per call).',
  ].join('\n')
  const missing = operations.length - open.length
  return {
    tools,
    instructions,
    summary: `${plural(tools.length, 'tool')} for a ${mode} workspace token (scopes: ${held.join(', ') || 'none'})${missing ? `; ${plural(missing, 'operation')} left out for scopes it lacks` : ''}`,
  }
}
