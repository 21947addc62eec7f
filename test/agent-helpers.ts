import { createAgent } from '../server/src/domain/agents.ts'
import { addRules } from '../server/src/domain/agent-rules.ts'
import type { Risk, RuleEffect } from '../server/src/core/enums.ts'
import { call, getHarness, type Answer } from './harness.ts'

/** Helpers for the agent gateway's black-box tests. */

export const CHECK_ORDER = ['agents_enabled', 'tool', 'permission', 'data', 'limits', 'risk', 'rules']

/** How many unnamed agents each workspace was given here. */
const unnamed = new Map<string, number>()

export async function agentIn(
  workspaceId: string,
  opts: {
    allow: string
    name?: string
    ceilings?: unknown
    dataAccess?: string[]
    maxUnattendedRisk?: Risk
  },
) {
  const { sql } = await getHarness()
  // An agent's name is its own among the workspace's active agents: the second unnamed one is 'Gateway agent 2'.
  const n = (unnamed.get(workspaceId) ?? 0) + 1
  if (!opts.name) unnamed.set(workspaceId, n)
  const a = await createAgent(sql, { workspaceId, name: opts.name ?? (n === 1 ? 'Gateway agent' : `Gateway agent ${n}`), ...opts })
  return { id: a.id, credential: a.credential }
}

export async function ruleIn(workspaceId: string, structure: unknown, effect: RuleEffect) {
  const { sql } = await getHarness()
  return sql.begin(async (tx) => (await addRules(tx, workspaceId, [{ structure, effect }]))[0]!)
}

export const authorize = (credential: string, body: unknown, headers?: Record<string, string>) =>
  call('POST', '/api/v1/agent/authorize', { token: credential, body, headers })

export const report = (credential: string, body: unknown, headers?: Record<string, string>) =>
  call('POST', '/api/v1/agent/result', { token: credential, body, headers })

export function checkOf(a: Answer, name: string): { name: string; passed: boolean; detail: string } {
  const c = a.body?.data?.checks?.find((x: { name: string }) => x.name === name)
  if (!c) throw new Error(`no check ${name} in ${a.status} ${a.text}`)
  return c
}

/** The decision, with the answer in the failure message when it is not the one expected. */
export function decisionOf(a: Answer): string {
  if (a.status !== 201) throw new Error(`expected 201, got ${a.status} ${a.text}`)
  return a.body.data.decision
}

/** How many agent requests a workspace recorded, and how much of its agentRequests allowance is used. */
export async function requestsOf(workspaceId: string) {
  const { sql } = await getHarness()
  const [row] = await sql<{ requests: number; used: number }[]>`
    SELECT (SELECT count(*)::int FROM agent_requests WHERE workspace_id = ${workspaceId}) AS requests,
           (SELECT used::int FROM usage_counters WHERE workspace_id = ${workspaceId} AND name = 'agentRequests') AS used`
  return row
}
