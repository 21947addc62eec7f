import { type AgentAuthorization, type AgentResult, type AgentSelf, AuthenticationError, ConnectionError, decidedByName, type Growth, GrowthError } from '@growth-service/sdk'
import { type Credentials, tokenOf } from '../api/credentials.ts'
import { noAnswerMessage } from '../api/refusal.ts'
import { CliError } from '../errors.ts'
import { answer, failureOf, lines, text } from './format.ts'
import { type DeclaredOperation, declaredOperations } from './schema.ts'
import { newIdempotencyKey, type McpTool, type Toolbox } from './tool.ts'

/**
 * An agent credential's tools: the agent gateway, for an agent that reaches its tools through MCP.
 * - `request_permission` (POST /agent/authorize): may I do this? The facts the gateway judges
 *   (amountMinor, currency, amountPercent, increase, recipients, records) are typed in its schema.
 *   Every decision is an answer, not an error: allowed (with the authorizationId to report under),
 *   denied (the reason and the checks that failed), requires_approval (the approvalId, and that a
 *   person must decide).
 * - `report_result` (POST /agent/result): what became of an allowed action.
 * - `my_profile` (GET /agent/me): what the agent may do and ask for.
 */

/** The tool of each agent operation. */
export const AGENT_TOOLS = { authorizeAgentAction: 'request_permission', reportAgentResult: 'report_result', getAgentSelf: 'my_profile' } as const

const INTRO: Record<keyof typeof AGENT_TOOLS, string> = {
  authorizeAgentAction: [
    'Ask the agent gateway whether you may do an action, BEFORE doing anything with effects (spending, sending, changing, exporting). Describe the action: tool and action keys (as my_profile lists your permissions), the resource it acts on, a one-line summary a person can read, and its facts (amounts, percentages, recipients, records) so the gateway can check them against your ceilings and the workspace\'s limits and rules.',
    'The answer is one of: allowed (do it, then call report_result with the authorizationId); denied (do not do it: the reason and the failed checks say why); requires_approval (do not do it now: a person must decide the approval; once they approve, the same request asked again is allowed, once).',
  ].join('\n\n'),
  reportAgentResult: 'After an allowed action, report what became of it: completed (with a one-line summary), failed (with the error) or cancelled. Use the authorizationId request_permission gave.',
  getAgentSelf: 'What you, the agent, may do (your permissions as tool and action keys, in words), the data you may use, your ceilings, your rate limit, and whether the workspace has stopped its agents.',
}

/**
 * What the operation's own description says, in a model's terms: the API's is written for a developer
 * (status codes, error codes, other endpoints), which a model calling a tool cannot act on.
 */
const FOR_THE_MODEL: Record<keyof typeof AGENT_TOOLS, string | undefined> = {
  authorizeAgentAction:
    "The checks run in order: the stop switch, the tool, your permissions, the data the action uses, your ceilings and the workspace's limits, the risk, and the owner's rules; the answer lists each. Every ask is recorded for the workspace's people and counts against the workspace's allowance of agent requests: ask once for an action, and again only when the action changed or a person has decided. A fact name the gateway does not know is refused, naming it.",
  reportAgentResult:
    'Report once for each allowed action, before its authorization expires: a report for a request that was not allowed, a second report, or a late one is refused, and the refusal is recorded too. The report is kept as your claim; nobody verifies it.',
  getAgentSelf: undefined,
}

function authorizationText(a: AgentAuthorization): string {
  const failed = a.checks.filter((c) => !c.passed)
  if (a.decision === 'allowed') {
    const approved = a.approvalDecision?.status === 'approved' ? a.approvalDecision : undefined
    return text([
      a.reason,
      !!approved?.reason && `${decidedByName(approved.decidedBy)} approved it (approval ${approved.approvalId}) with the note ${JSON.stringify(approved.reason)}.`,
      `authorizationId: ${a.authorizationId}${a.expiresAt ? ` (valid until ${a.expiresAt})` : ''}`,
      'Do the action now, then call report_result with this authorizationId and what became of it.',
    ])
  }
  if (a.decision === 'denied') {
    const rejected = a.approvalDecision?.status === 'rejected' ? a.approvalDecision : undefined
    // Denied by that rejection, the gateway's reason is the rejection said again (and once more in its
    // check): said once up front, quoted, a person's words reach the model once and not three times.
    const saidByRejection = !!rejected && a.reason.includes(`(${rejected.approvalId})`)
    return text([
      rejected &&
        `${decidedByName(rejected.decidedBy)} rejected this request (approval ${rejected.approvalId}) ${rejected.reason ? `with the reason ${JSON.stringify(rejected.reason)}` : 'without giving a reason'}.`,
      !saidByRejection && a.reason,
      failed.length > 0 && ['Checks that failed:', ...failed.map((c) => `- ${c.name}: ${c.detail}`)],
      a.rules.length > 0 && ['Rules that applied:', ...a.rules.map((r) => `- ${r.sentence} (${r.effect}, ${r.id})`)],
      `authorizationId: ${a.authorizationId}`,
      // Stopped, no other request would be allowed either: asking for something else only adds denials.
      failed.some((c) => c.name === 'agents_enabled')
        ? 'Do not do this action, nor any other: every request is denied until a person of the workspace resumes the agents (my_profile says whether they are stopped). Tell the person.'
        : 'Do not do this action. Tell the person why, or ask for something within these checks.',
    ])
  }
  return text([
    a.reason,
    `approvalId: ${a.approvalId} (pending: a person must decide)`,
    failed.length > 0 && ['Checks that need a person:', ...failed.map((c) => `- ${c.name}: ${c.detail}`)],
    // No command that decides it: a model with a shell must not be shown how to approve its own request.
    `Do not do the action now. Do not try to decide the approval yourself: a person of the workspace decides it, in the console's inbox. Once it is approved, call request_permission again with exactly the same request (tool, action, resource, facts, params): it is then allowed, once.`,
  ])
}

function resultText(r: AgentResult): string {
  return text([`Recorded: ${r.status} for ${r.authorizationId} (${r.id}). It is kept as your report, not verified.`])
}

function profileText(me: AgentSelf): string {
  return text([
    `You are ${me.agent.name} (${me.agent.id}).`,
    me.agentsStopped && `The workspace has stopped its agents${me.stoppedReason ? `: ${me.stoppedReason}` : ''}. Every request is denied until they are resumed.`,
    lines({ permissions: me.permissions, dataAccess: me.dataAccess, maxUnattendedRisk: me.maxUnattendedRisk, ceilings: me.ceilings, limits: me.limits }),
  ])
}

function agentTool(growth: Growth, op: DeclaredOperation): McpTool {
  const id = op.operationId as keyof typeof AGENT_TOOLS
  const name = AGENT_TOOLS[id]
  const description = [INTRO[id], `${op.summary}. ${FOR_THE_MODEL[id] ?? op.description}`].join('\n\n')
  const annotations = { title: op.summary, readOnlyHint: op.spec.kind !== 'write', openWorldHint: false }
  let call: McpTool['call']
  if (id === 'authorizeAgentAction') {
    call = async (args, signal) => {
      const idempotencyKey = newIdempotencyKey()
      try {
        const { data, requestId } = await growth.agent.authorize(args as never, { idempotencyKey, signal }).withResponse()
        const a = data as AgentAuthorization
        return answer({ ...a, idempotencyKey, requestId: requestId ?? null }, authorizationText(a))
      } catch (err) {
        return failureOf(err)
      }
    }
  } else if (id === 'reportAgentResult') {
    call = async (args, signal) => {
      const idempotencyKey = newIdempotencyKey()
      try {
        const { data, requestId } = await growth.agent.result(args as never, { idempotencyKey, signal }).withResponse()
        return answer({ ...(data as AgentResult), idempotencyKey, requestId: requestId ?? null }, resultText(data as AgentResult))
      } catch (err) {
        return failureOf(err)
      }
    }
  } else {
    call = async (_args, signal) => {
      try {
        const { data, requestId } = await growth.agent.me(undefined, { signal }).withResponse()
        return answer({ ...(data as AgentSelf), requestId: requestId ?? null }, profileText(data as AgentSelf))
      } catch (err) {
        return failureOf(err)
      }
    }
  }
  return { name, title: op.summary, description, inputSchema: op.inputSchema, outputSchema: op.outputSchema, annotations, argumentCode: op.spec.kind === 'write' ? 'invalid_request' : 'invalid_parameter', call }
}

/** The tools of an agent credential. At start, GET /agent/me checks the credential and names the agent. */
export async function agentToolbox(growth: Growth, credentials: Credentials): Promise<Toolbox> {
  let me: AgentSelf
  try {
    me = (await growth.agent.me()) as AgentSelf
  } catch (err) {
    if (err instanceof AuthenticationError) throw new CliError(`the API at ${credentials.baseUrl} refused ${tokenOf(credentials)}: ${err.message}`)
    if (err instanceof ConnectionError) throw new CliError(noAnswerMessage(err, credentials))
    if (err instanceof GrowthError && err.status !== undefined) throw new CliError(`the API at ${credentials.baseUrl} refused: ${err.message} (${err.status} ${err.code ?? ''})`.replace(' )', ')'))
    throw err
  }
  const tools = declaredOperations()
    .filter((op) => op.caller === 'agent' && op.operationId in AGENT_TOOLS)
    .map((op) => agentTool(growth, op))
  const instructions = [
    `You act as the agent ${me.agent.name} (${me.agent.id}) of a Growth Automation Service workspace, through its agent gateway at ${credentials.baseUrl}.`,
    'Before any action with effects, call request_permission and act only on allowed; after acting, call report_result with the authorizationId. A denial is final for that request; requires_approval means a person must decide first.',
    'my_profile says what you are permitted and your ceilings.',
    me.agentsStopped ? `The workspace has stopped its agents${me.stoppedReason ? `: ${me.stoppedReason}` : ''}; every request is denied until they are resumed.` : undefined,
  ]
    .filter(Boolean)
    .join('\n')
  return { tools, instructions, summary: `${tools.length} agent tools for ${me.agent.name} (${me.agent.id})` }
}
