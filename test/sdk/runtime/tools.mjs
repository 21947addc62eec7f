// A user's program: guarded() from @growth-service/sdk/tools around three plain functions, under
// Node.js, Bun or Deno, with the agent credential in GROWTH_TOKEN (the default client). It asserts
// nothing itself: it prints one JSON object, and test/sdk/tools.test.ts compares.
import { AgentDeniedError, guarded } from '@growth-service/sdk/tools'
// The adapters' subpaths load with no framework installed: they import nothing of it.
import { guardTool } from '@growth-service/sdk/tools/ai'
import { guardedTool } from '@growth-service/sdk/tools/openai-agents'

const ran = []
const pause = guarded(async ({ campaignId }) => {
  ran.push(`pause ${campaignId}`)
  return `Paused ${campaignId}`
}, { tool: 'ads', action: 'pause_campaign', resource: ({ campaignId }) => campaignId })

const broken = guarded(({ campaignId }) => {
  ran.push(`broken ${campaignId}`)
  throw new Error(`Ad platform timed out pausing ${campaignId}`)
}, { tool: 'ads', action: 'pause_campaign', resource: ({ campaignId }) => campaignId })

const send = guarded((to, subject) => {
  ran.push(`send ${subject}`)
  return 'sent'
}, { tool: 'email', action: 'send_campaign', resource: (_to, subject) => subject, facts: (to) => ({ recipients: to.length }) })

const report = { adapters: [typeof guardTool, typeof guardedTool] }
report.allowed = await pause({ campaignId: 'cmp_runtime' })
try {
  await broken({ campaignId: 'cmp_broken' })
} catch (e) {
  report.failed = e.message
}
try {
  await send(['a@example.com', 'b@example.com'], 'Not permitted')
} catch (e) {
  report.denied = { name: e.name, isAgentDenied: e instanceof AgentDeniedError, reason: e.reason, failedChecks: e.checks.filter((c) => !c.passed).map((c) => c.name) }
}
report.ran = ran
console.log(JSON.stringify(report))
