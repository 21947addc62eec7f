import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { JsonSchema } from './schema.ts'

/** One MCP tool of `growth mcp`: what tools/list shows, and what tools/call runs. */
export type McpTool = {
  name: string
  title: string
  description: string
  inputSchema: JsonSchema
  /** What its structuredContent holds: the answer, or a tool error (output-schema.ts). */
  outputSchema: JsonSchema
  annotations: ToolAnnotations
  /** The code of an argument refused before anything is sent: as the API would call it. */
  argumentCode: 'invalid_parameter' | 'invalid_request'
  /** Runs the call with checked arguments; never throws (a failure is a tool error). */
  call(args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>
}

/** The tools for one credential, and what the server tells the client about them. */
export type Toolbox = {
  tools: McpTool[]
  /** The server's instructions (the initialize answer): what these tools are and how to use them. */
  instructions: string
  /** One line for the log (stderr): which credential, how many tools. */
  summary: string
}

/** The Idempotency-Key of one tools/call: one per call, reused by the SDK's retries of it. */
export function newIdempotencyKey(): string {
  return `mcp-${crypto.randomUUID()}`
}
