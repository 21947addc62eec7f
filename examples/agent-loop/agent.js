import { AgentDeniedError, ApprovalRequiredError, Growth } from '@growth-service/sdk'

// The agent's own credential (svc_agt_...); the base URL comes from GROWTH_BASE_URL.
const agent = new Growth({ token: process.env.AGENT })
const campaign = process.env.CAMPAIGN

// What the agent has planned. In a real agent these come from a model; each is asked for before it is done.
const plan = [
  {
    tool: 'ads',
    action: 'pause_campaign',
    resource: campaign,
    summary: 'Pause the campaign overnight: it spends without converting after 22:00.',
  },
  {
    tool: 'email',
    action: 'send_campaign',
    resource: 'winter-newsletter',
    summary: 'Send the winter newsletter to every subscriber.',
  },
  {
    tool: 'ads',
    action: 'adjust_budget',
    resource: campaign,
    summary: 'Raise the daily budget by 18% for the weekend sale.',
    facts: { amountPercent: 18, increase: true },
  },
]

// Stands in for the ad and email platforms' APIs. What it returns is reported as the result's summary.
async function carryOut(step, { authorization }) {
  console.log(`  allowed (${authorization.authorizationId}): ${authorization.reason}`)
  return `Done: ${step.summary}`
}

// Asks before acting; when a person must decide, says which approval and waits for it.
async function act(step) {
  try {
    return await agent.agent.guard(step, (context) => carryOut(step, context))
  } catch (error) {
    if (!(error instanceof ApprovalRequiredError)) throw error
    console.log(`  waits for a person: growth admin approval approve ${error.approvalId}`)
    return agent.agent.guard(step, (context) => carryOut(step, context), {
      waitForApproval: { intervalMs: 1_000, timeoutMs: 10 * 60_000 },
    })
  }
}

const me = await agent.agent.me()
console.log(`${me.agent.name}: ${plan.length} planned actions`)

for (const step of plan) {
  console.log(`${step.tool}.${step.action} ${step.resource}: ${step.summary}`)
  try {
    const summary = await act(step)
    console.log(`  reported completed: ${summary}`)
  } catch (error) {
    if (error instanceof AgentDeniedError) {
      console.log(`  denied (${error.authorizationId}): ${error.reason}`)
      for (const check of error.checks.filter((c) => !c.passed)) console.log(`    ${check.name}: ${check.detail}`)
    } else if (error instanceof ApprovalRequiredError) {
      console.log(`  no decision in time on ${error.approvalId}; skipped`)
    } else {
      throw error
    }
  }
}
