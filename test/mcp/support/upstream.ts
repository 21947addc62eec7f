import { appendFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/**
 * A small MCP server for the guard's tests (stdio): it writes one JSON line per tool call it
 * receives to the file UPSTREAM_LOG, so a test counts what reached it. send_email "sends" (nothing
 * leaves the machine), bounce answers with a tool error, slow_email answers only once cancelled (or
 * after 30 s), delete_contacts is what no config maps, create_issue "opens" an issue (for a tool an
 * owner added to the workspace's policy, github.create_issue).
 */
const log = process.env.UPSTREAM_LOG
if (!log) throw new Error('UPSTREAM_LOG must name the file the calls are written to')

const recipients = { type: 'array', items: { type: 'string' }, description: 'Addresses' }
const TOOLS = [
  { name: 'send_email', description: 'Send an e-mail.', inputSchema: { type: 'object', properties: { to: recipients, subject: { type: 'string' } }, required: ['to', 'subject'] } },
  { name: 'bounce', description: 'Send an e-mail that the mail server refuses.', inputSchema: { type: 'object', properties: { to: recipients, subject: { type: 'string' } }, required: ['to'] } },
  { name: 'slow_email', description: 'Send an e-mail, slowly.', inputSchema: { type: 'object', properties: { to: recipients, subject: { type: 'string' } }, required: ['to'] } },
  { name: 'delete_contacts', description: 'Delete every contact.', inputSchema: { type: 'object', properties: {} } },
  { name: 'create_issue', description: 'Open an issue.', inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
]

const server = new Server({ name: 'test-upstream', version: '1.0.0' }, { capabilities: { tools: {} }, instructions: 'A test mail server.' })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }))
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args = {} } = request.params
  appendFileSync(log, `${JSON.stringify({ name, args })}\n`)
  const to = (args.to as string[] | undefined) ?? []
  if (name === 'send_email') return { content: [{ type: 'text', text: `Sent "${args.subject}" to ${to.length} recipient(s).` }] }
  if (name === 'bounce') return { isError: true, content: [{ type: 'text', text: `Mail server refused the message: mailbox of ${to[0]} is full.` }] }
  if (name === 'slow_email') {
    const cancelled = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 30_000)
      extra.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(true)), { once: true })
    })
    appendFileSync(log, `${JSON.stringify({ name, cancelled })}\n`)
    return { content: [{ type: 'text', text: cancelled ? 'Cancelled.' : 'Sent, slowly.' }] }
  }
  if (name === 'create_issue') return { content: [{ type: 'text', text: `Opened "${args.title}".` }] }
  if (name === 'delete_contacts') return { content: [{ type: 'text', text: 'Deleted every contact.' }] }
  return { isError: true, content: [{ type: 'text', text: `Unknown tool ${name}` }] }
})
await server.connect(new StdioServerTransport())
