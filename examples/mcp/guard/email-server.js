// A tiny e-mail MCP server (stdio), the kind of server an agent is given: send_email "sends" by
// writing the message to outbox.jsonl (nothing leaves the machine), delete_outbox empties it.
// It knows nothing of the gateway; growth mcp guard stands in front of it.
import { appendFileSync, writeFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const OUTBOX = process.env.OUTBOX ?? 'outbox.jsonl'

const tools = [
  {
    name: 'send_email',
    description: 'Send an e-mail to one or more people.',
    inputSchema: {
      type: 'object',
      properties: { to: { type: 'array', items: { type: 'string' } }, subject: { type: 'string' }, body: { type: 'string' } },
      required: ['to', 'subject', 'body'],
    },
  },
  { name: 'delete_outbox', description: 'Delete every message sent so far.', inputSchema: { type: 'object', properties: {} } },
]

const server = new Server({ name: 'example-email', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, ({ params: { name, arguments: args = {} } }) => {
  if (name === 'send_email') {
    appendFileSync(OUTBOX, `${JSON.stringify({ to: args.to, subject: args.subject, body: args.body })}\n`)
    return { content: [{ type: 'text', text: `Sent "${args.subject}" to ${args.to.length} recipient(s).` }] }
  }
  if (name === 'delete_outbox') {
    writeFileSync(OUTBOX, '')
    return { content: [{ type: 'text', text: 'Deleted every message.' }] }
  }
  return { isError: true, content: [{ type: 'text', text: `No tool ${name}.` }] }
})
await server.connect(new StdioServerTransport())
