// Plays the desktop MCP client for the issue tracker: starts the "issues" server exactly as
// mcp-client-config.json says (growth mcp guard in front of issues-server.js), lists its tools, and
// makes the calls a model might make. The agent's credential comes from AGENT (or GROWTH_TOKEN);
// GROWTH_CLI names the growth command when it is not on the PATH.
import { readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const { command, args, env } = JSON.parse(readFileSync(new URL('mcp-client-config.json', import.meta.url), 'utf8')).mcpServers.issues
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
  stderr: 'inherit',
})
const client = new Client({ name: 'example-desktop-client', version: '1.0.0' })
await client.connect(transport)

const { tools } = await client.listTools()
console.log(`tools: ${tools.map((t) => t.name).join(', ')}`)

const calls = [
  { name: 'create_issue', arguments: { title: 'Checkout fails on Safari', body: 'Seen since the last release.' } },
  { name: 'create_issue', arguments: { title: 'Checkout fails on Firefox', body: 'Same as the Safari one?' } },
  { name: 'close_all_issues', arguments: {} },
]
for (const call of calls) {
  const result = await client.callTool(call)
  const text = result.content.map((c) => c.text).join(' ')
  console.log(`${call.name} ${JSON.stringify(call.arguments.title ?? '')}: ${result.isError ? 'refused: ' : ''}${text.split('\n')[0]}`)
}
await client.close()
