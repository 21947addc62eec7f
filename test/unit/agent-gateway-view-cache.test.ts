import { describe, expect, test } from 'bun:test'
import type { GatewayView, ReadView } from '../../server/src/store/agent-gateway.ts'
import { GatewayViewCache } from '../../server/src/store/agent-gateway-view-cache.ts'

/** The bounds of the agent gateway's kept views (what they may decide is tested over HTTP: test/server/agent-view-kept.test.ts). */
const view = (size: number, digest = `d${size}`): ReadView => ({ view: {} as GatewayView, digest, size })
const ask = (i: number) => ({ agentId: `agt_${i}`, tool: 'ads', action: 'pause_campaign' })

describe('GatewayViewCache', () => {
  test('keeps a view by workspace, agent, tool and action', () => {
    const cache = new GatewayViewCache()
    cache.set('ws_1', ask(1), view(100, 'a'))
    expect(cache.get('ws_1', ask(1))?.digest).toBe('a')
    expect(cache.get('ws_2', ask(1))).toBeUndefined()
    expect(cache.get('ws_1', ask(2))).toBeUndefined()
    expect(cache.get('ws_1', { ...ask(1), action: 'adjust_budget' })).toBeUndefined()
    cache.delete('ws_1', ask(1))
    expect(cache.get('ws_1', ask(1))).toBeUndefined()
  })

  test('holds at most 4 MiB of views, letting the least recently used go first', () => {
    const cache = new GatewayViewCache()
    const size = 64 * 1024
    for (let i = 0; i < 64; i++) cache.set('ws', ask(i), view(size))
    // 64 views of 64 KiB fill it; the first is used again, so the second goes when one more comes.
    expect(cache.get('ws', ask(0))).toBeDefined()
    cache.set('ws', ask(64), view(size))
    expect(cache.get('ws', ask(1))).toBeUndefined()
    expect(cache.get('ws', ask(0))).toBeDefined()
    expect(cache.get('ws', ask(64))).toBeDefined()
    // Replacing a view counts its size once.
    for (let i = 0; i < 10; i++) cache.set('ws', ask(64), view(size))
    expect(cache.get('ws', ask(2))).toBeDefined()
  })

  test('a view over 64 KiB is not kept', () => {
    const cache = new GatewayViewCache()
    cache.set('ws', ask(1), view(64 * 1024 + 1))
    expect(cache.get('ws', ask(1))).toBeUndefined()
    // and it does not leave the smaller one it replaced behind
    cache.set('ws', ask(2), view(10))
    cache.set('ws', ask(2), view(64 * 1024 + 1))
    expect(cache.get('ws', ask(2))).toBeUndefined()
  })
})
