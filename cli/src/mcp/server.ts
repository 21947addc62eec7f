import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { type CallToolResult, CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import pkg from '../../../package.json'
import { checkArguments } from './args.ts'
import { failure, failureOf } from './format.ts'
import type { Toolbox } from './tool.ts'

/**
 * The MCP server of `growth mcp`, on the official SDK's low-level Server: tools/list gives the
 * toolbox's tools with their input and output schemas as generated from the OpenAPI document, tools/call checks
 * the arguments (a bad one is named) and runs the tool. Whatever happens in a call, the answer is a
 * tool result: a refusal or a failure is `isError: true`, never a crash of the server. An unknown
 * tool is the protocol's own error (InvalidParams), as the specification has it.
 */

/**
 * The requests a client has sent and not yet had answered, across its transports, so a shutdown
 * (the client closing stdin, Ctrl-C, SIGTERM) answers them before the process exits.
 */
export class Pending {
  readonly #open = new Map<Transport, Set<string | number>>()
  #waiters: (() => void)[] = []

  /** Counts the requests coming in on `transport` until their answers go out. Call after server.connect(transport). */
  watch(transport: Transport) {
    const ids = new Set<string | number>()
    this.#open.set(transport, ids)
    const receive = transport.onmessage
    transport.onmessage = (message, extra) => {
      if ('method' in message && 'id' in message) ids.add(message.id)
      receive?.(message, extra)
    }
    const send = transport.send.bind(transport)
    transport.send = async (message, options) => {
      try {
        return await send(message, options)
      } finally {
        if (!('method' in message) && 'id' in message && ids.delete(message.id as string | number)) this.#check()
      }
    }
    const closed = transport.onclose
    transport.onclose = () => {
      this.#open.delete(transport)
      this.#check()
      closed?.()
    }
  }

  /** Whether a request that came in on `transport` still waits for its answer. */
  busy(transport: Transport): boolean {
    return (this.#open.get(transport)?.size ?? 0) > 0
  }

  #check() {
    if ([...this.#open.values()].every((ids) => ids.size === 0)) for (const wake of this.#waiters.splice(0)) wake()
  }

  /** Resolves once every request is answered (at once when none is open), or after `ms`. */
  idle(ms: number): Promise<void> {
    if ([...this.#open.values()].every((ids) => ids.size === 0)) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.#waiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }
}

export function createMcpServer(toolbox: Toolbox): Server {
  const server = new Server({ name: 'growth', title: 'Growth Automation Service', version: pkg.version }, { capabilities: { tools: {} }, instructions: toolbox.instructions })
  const byName = new Map(toolbox.tools.map((t) => [t.name, t]))

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolbox.tools.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: 'object'; properties?: Record<string, object> },
      outputSchema: t.outputSchema as { type: 'object' },
      annotations: t.annotations,
    })),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name)
    if (!tool) {
      throw protocolError(ErrorCode.InvalidParams, `No tool ${request.params.name}; tools/list names the ${toolbox.tools.length} there are.`)
    }
    try {
      const checked = checkArguments(tool.name, tool.inputSchema, request.params.arguments)
      if ('problem' in checked) return failure({ code: tool.argumentCode, message: checked.problem.message, requestId: null, argument: checked.problem.argument })
      return await tool.call(checked.args, extra.signal)
    } catch (err) {
      // A tool never throws by design; this is the last guard of "never a crash".
      return failureOf(err)
    }
  })
  return server
}

/**
 * A JSON-RPC error for the client: its code, and the sentence alone as its message. The SDK sends
 * a thrown error's `message` as is, and McpError's message already starts `MCP error <code>: `, so a
 * client that adds that prefix (the SDK's own Client does) showed it twice.
 */
function protocolError(code: number, message: string): Error & { code: number } {
  return Object.assign(new Error(message), { code })
}
