import { readFileSync } from 'node:fs'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

// The MCP servers a desktop client would start, as claude_desktop_config.json configures them.
const { mcpServers } = JSON.parse(readFileSync(new URL('./claude_desktop_config.json', import.meta.url), 'utf8'))

// Starts one as a desktop client does: its command and arguments, with this environment (GROWTH_TOKEN,
// GROWTH_BASE_URL, GROWTH_PROFILE, PATH, ...) and the variables it configures. What growth mcp writes
// to stderr (which credential it uses, or why it cannot start) is shown, as a desktop client's log keeps it.
async function start(name) {
  const { command, args = [], env = {} } = mcpServers[name]
  const client = new Client({ name: 'growth-example-mcp', version: '1.0.0' })
  const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'pipe' })
  let partial = ''
  transport.stderr.on('data', (chunk) => {
    const lines = (partial + chunk).split('\n')
    partial = lines.pop()
    for (const line of lines) process.stderr.write(`[${name}] ${line}\n`)
  })
  try {
    await client.connect(transport)
  } catch (err) {
    // The server ended before answering: its own message (no token, no profile, no server) is above.
    await new Promise((resolve) => setTimeout(resolve, 100))
    console.error(`${name}: ${command} ${args.join(' ')} did not start (${err.message}); what it said is above.`)
    process.exit(1)
  }
  return client
}

// One tool call, as a model would make it: prints the call and the start of the text the model reads.
async function use(client, name, args = {}) {
  console.log(`> ${name} ${JSON.stringify(args)}`)
  const result = await client.callTool({ name, arguments: args })
  const lines = result.content.map((c) => c.text).join('\n').split('\n')
  for (const line of lines.slice(0, 8)) console.log(`  ${line}`)
  if (lines.length > 8) console.log(`  … ${lines.length - 8} more lines`)
  return result
}

// The workspace's tools, with the workspace token of the profile `default`.
const workspace = await start('growth')
const { tools } = await workspace.listTools()
console.log(`growth: ${tools.length} tools (${tools.slice(0, 4).map((t) => t.name).join(', ')}, ...)`)
const first = await use(workspace, 'listDecisions', { limit: 2 })
if (first.structuredContent.hasMore) await use(workspace, 'listDecisions', { limit: 2, cursor: first.structuredContent.nextCursor })
await use(workspace, 'getRevenue')

// The agent's tools, with the agent credential of the profile `agent`: ask, act, report.
const agent = await start('growth-agent')
const me = await use(agent, 'my_profile')
const pause = await use(agent, 'request_permission', {
  tool: 'ads',
  action: 'pause_campaign',
  resource: process.env.CAMPAIGN,
  summary: 'Pause the campaign overnight: it spends without converting after 22:00.',
})
if (pause.structuredContent.decision === 'allowed') {
  // Here the agent would pause the campaign with the ad platform's own tool, then say how it went.
  await use(agent, 'report_result', { authorizationId: pause.structuredContent.authorizationId, status: 'completed', summary: 'Paused until 06:00.' })
}
await use(agent, 'request_permission', {
  tool: 'email',
  action: 'send_campaign',
  resource: 'winter-newsletter',
  summary: 'Send the winter newsletter to every subscriber.',
})
await agent.close()

// The workspace's view of the agent's last requests, through the workspace's own tool.
const { structuredContent: requests } = await workspace.callTool({ name: 'listAgentRequests', arguments: { agentId: me.structuredContent.agent.id, limit: 2 } })
console.log(`${me.structuredContent.agent.name}'s last requests, as the workspace sees them:`)
for (const r of requests.data) console.log(`  ${r.decision} ${r.tool}.${r.action} ${r.resource}: ${r.result ? `reported ${r.result.status}` : 'nothing reported'}`)
await workspace.close()
