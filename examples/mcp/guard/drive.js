// Plays the desktop MCP client, without a language model: starts the "email" server exactly as
// mcp-client-config.json says (growth mcp guard in front of email-server.js), lists its tools, and
// makes the calls a model might make. The agent's credential comes from AGENT (or GROWTH_TOKEN);
// GROWTH_CLI names the growth command when it is not on the PATH.
import { readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const { command, args, env } = JSON.parse(readFileSync(new URL('mcp-client-config.json', import.meta.url), 'utf8')).mcpServers.email
const transport = new StdioClientTransport({
  command: command === 'growth' && process.env.GROWTH_CLI ? process.env.GROWTH_CLI : command,
  args,
  cwd: new URL('.', import.meta.url).pathname,
  env: {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...env,
    GROWTH_TOKEN: process.env.AGENT ?? process.env.GROWTH_TOKEN ?? env.GROWTH_TOKEN,
    GROWTH_BASE_URL: process.env.GROWTH_BASE_URL ?? env.GROWTH_BASE_URL,
  },
  stderr: 'inherit', // the guard says on stderr which tools it guards and which it refuses
})
const client = new Client({ name: 'example-desktop-client', version: '1.0.0' })
await client.connect(transport)

const { tools } = await client.listTools()
console.log(`tools: ${tools.map((t) => t.name).join(', ')}`)

const calls = [
  { name: 'send_email', arguments: { to: ['ana@example.com', 'ben@example.com'], subject: 'Winter sale', body: 'Twenty percent off until Sunday.' } },
  { name: 'send_email', arguments: { to: ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com'], subject: 'Everyone', body: 'Hello all.' } },
  { name: 'delete_outbox', arguments: {} },
]
for (const call of calls) {
  const result = await client.callTool(call)
  const text = result.content.map((c) => c.text).join(' ')
  console.log(`${call.name} ${JSON.stringify(call.arguments.subject ?? '')}: ${result.isError ? 'refused: ' : ''}${text.split('\n')[0]}`)
}
await client.close() // the guard sends the result reports it still owes, then exits
