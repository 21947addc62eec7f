// A tiny issue-tracker MCP server (stdio): create_issue "opens" an issue by writing it to
// issues.jsonl (nothing leaves the machine), close_all_issues empties it. It knows nothing of the
// gateway; growth mcp guard stands in front of it, mapping create_issue onto github.create_issue,
// a tool the workspace's owner added to its policy (add-github.js).
import { appendFileSync, writeFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const ISSUES = process.env.ISSUES ?? 'issues.jsonl'

const tools = [
  {
    name: 'create_issue',
    description: 'Open an issue in the repository.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title'] },
  },
  { name: 'close_all_issues', description: 'Close every open issue.', inputSchema: { type: 'object', properties: {} } },
]

const server = new Server({ name: 'example-issues', version: '1.0.0' }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }))
server.setRequestHandler(CallToolRequestSchema, ({ params: { name, arguments: args = {} } }) => {
  if (name === 'create_issue') {
    appendFileSync(ISSUES, `${JSON.stringify({ title: args.title, body: args.body ?? '' })}\n`)
    return { content: [{ type: 'text', text: `Opened "${args.title}".` }] }
  }
  if (name === 'close_all_issues') {
    writeFileSync(ISSUES, '')
    return { content: [{ type: 'text', text: 'Closed every issue.' }] }
  }
  return { isError: true, content: [{ type: 'text', text: `No tool ${name}.` }] }
})
await server.connect(new StdioServerTransport())
