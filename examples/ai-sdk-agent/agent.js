// An AI SDK agent's tools, with the send-email tool guarded by the agent gateway. No language model
// here: the script makes the tool calls a model would make (execute, as the AI SDK calls it), so
// what the guard does is plain to see. In a real agent, pass `tools` to generateText or an Agent.
import { Growth } from '@growth-service/sdk'
import { guardTool } from '@growth-service/sdk/tools/ai'
import { tool } from 'ai'
import { z } from 'zod'

const agent = new Growth({ token: process.env.AGENT }) // the agent's credential; GROWTH_BASE_URL from the environment
const outbox = []

export const tools = {
  send_email: guardTool(
    tool({
      description: 'Send an e-mail to one or more people.',
      inputSchema: z.object({ to: z.array(z.string()).min(1), subject: z.string(), body: z.string() }),
      execute: async ({ to, subject, body }) => {
        outbox.push({ to, subject, body }) // your mail provider's API here
        return `Sent "${subject}" to ${to.length} recipient(s).`
      },
    }),
    {
      client: agent,
      tool: 'email',
      action: 'send_campaign',
      resource: ({ subject }) => subject,
      facts: ({ to }) => ({ recipients: to.length }),
    },
  ),
}

// What a model would ask for, one tool call at a time.
const calls = [
  { to: ['ana@example.com', 'ben@example.com'], subject: 'Winter sale', body: 'Twenty percent off until Sunday.' },
  { to: ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com', 'e@example.com'], subject: 'Everyone', body: 'Hello all.' },
]
for (const [i, input] of calls.entries()) {
  try {
    const output = await tools.send_email.execute(input, { toolCallId: `call_${i + 1}`, messages: [] })
    console.log(`send_email "${input.subject}": ${output}`)
  } catch (error) {
    // The AI SDK gives the model this error as the tool's result: the gateway's reason.
    console.log(`send_email "${input.subject}": ${error.name}: ${error.message}`)
  }
}
console.log(`outbox: ${outbox.map((m) => m.subject).join(', ')}`)
