import type { DemoWorkspace } from '../server/src/demo/index.ts'
import type { Operation } from '../server/src/routes/operation.ts'
import { EXAMPLE } from '../server/src/routes/examples.ts'

/**
 * The request an operation's documented example makes, against a demo workspace: the example's
 * ids (routes/examples.ts) swapped for the workspace's own (scripts/capture-examples.ts captures the
 * document's response examples with it), the
 * right credential for its auth, and `query` in place of the example's query when given. The
 * example of POST /agent/result needs an authorization: the first call makes one.
 */
export type ExampleContext = { demo: DemoWorkspace; base: string; authorizationId?: string }

export async function exampleRequest(op: Operation, ctx: ExampleContext, query?: Record<string, string>): Promise<{ path: string; init: RequestInit }> {
  const { demo } = ctx
  const agent = demo.agents[0]!
  const token = op.auth.kind === 'public' ? undefined : op.auth.kind === 'agent' ? agent.credential : demo.tokens.live
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {}
  if (op.kind === 'write' && op.body && JSON.stringify(op.example.body).includes(EXAMPLE.authorization) && !ctx.authorizationId) {
    const res = await fetch(`${ctx.base}/api/v1/agent/authorize`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${agent.credential}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ tool: 'ads', action: 'pause_campaign', resource: demo.fixtures.campaignId }),
    })
    ctx.authorizationId = ((await res.json()) as { data: { authorizationId: string } }).data.authorizationId
  }
  const ids: Record<string, string> = {
    [EXAMPLE.mission]: demo.fixtures.missionId,
    [EXAMPLE.decision]: demo.fixtures.decisionId,
    [EXAMPLE.abTest]: demo.fixtures.openAbTestId,
    [EXAMPLE.emailSend]: demo.fixtures.emailSendId,
    [EXAMPLE.campaign]: demo.fixtures.campaignId,
    [EXAMPLE.list]: demo.fixtures.listId,
    [EXAMPLE.agent]: agent.id,
    ...(ctx.authorizationId ? { [EXAMPLE.authorization]: ctx.authorizationId } : {}),
  }
  const real = <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(/\b(?:msn|dec|abt|snd|cmp|lst|seg|agt|auth)_[0-9a-z]{26}\b/g, (id) => ids[id] ?? id))
  if (op.kind === 'write') {
    return { path: op.path, init: { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(real(op.example.body)) } }
  }
  const q = new URLSearchParams(query ?? real(op.example?.query ?? {})).toString()
  return { path: `${op.path}${q ? `?${q}` : ''}`, init: { method: 'GET', headers } }
}
