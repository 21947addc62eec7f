import { expect, test } from 'bun:test'
import { Growth, GrowthError } from '../../sdk/src/index.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { agentIn } from '../agent-helpers.ts'

/**
 * A list whose server hands back the position it was asked for would keep `for await` going until
 * the rate limit stopped it (the bug a microsecond created_at once caused on a PostgreSQL server).
 * The SDK stops at the repeat with a GrowthError instead. The server here is the real one; the
 * client's own `fetch` option passes each call on to it and, on the second page, echoes the
 * request's cursor as the next one, as the broken server did.
 */
test('a page whose next position is its own stops the walk with a GrowthError, after one repeat', async () => {
  const { url } = await getHarness()
  const ws = await makeWorkspace()
  for (let i = 0; i < 3; i++) await agentIn(ws.id, { allow: 'ads.pause_campaign', name: `Agent ${i}` })
  let calls = 0
  const growth = new Growth({
    token: ws.live,
    baseUrl: `${url}/api/v1`,
    fetch: async (input, init) => {
      calls++
      const res = await fetch(input, init)
      const cursor = new URL(String(input)).searchParams.get('cursor')
      if (!cursor) return res
      const body = (await res.json()) as { data: unknown[]; meta?: Record<string, string> }
      return new Response(JSON.stringify({ ...body, meta: { nextCursor: cursor } }), { status: res.status, headers: res.headers })
    },
  })
  const seen: string[] = []
  let error: unknown
  try {
    for await (const agent of growth.agents.list({ limit: 1 })) seen.push(agent.id)
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(GrowthError)
  expect((error as Error).message).toContain('as its own next position')
  expect(seen).toHaveLength(2)
  expect(calls).toBe(2)
})
