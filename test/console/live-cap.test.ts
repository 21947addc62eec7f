import { expect, test } from 'bun:test'
import { EventWatcher } from '../../server/src/domain/event-watch.ts'
import { LIVE_TYPES, liveResponse } from '../../server/src/console/live.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * One process holds at most 5,000 live pages (console/live.ts): the next is answered 503 with
 * Retry-After and no stream (the page stays as it is; reloading works), and once a page goes, a new
 * one is let in again.
 */
test('past 5,000 open live pages a process answers 503 with Retry-After, and lets one in when one goes', async () => {
  const { sql } = await getHarness()
  const ws = await makeWorkspace()
  const watcher = new EventWatcher(sql, { everyMs: 60_000, types: LIVE_TYPES })
  const pages: { stop: () => void }[] = []
  try {
    for (let i = 0; i < 5_000; i++) pages.push(watcher.watch(ws.id, () => {}))
    expect(watcher.watching).toBe(5_000)
    const refused = liveResponse(watcher, ws.id, new AbortController().signal, {}, { token: 'one session', stillOpen: async () => true })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('60')
    expect(refused.headers.get('content-type')).toBe('text/event-stream')
    expect(await refused.text()).toBe('retry: 60000\n\n')
    expect(watcher.watching).toBe(5_000)

    pages.pop()!.stop()
    const page = new AbortController()
    const admitted = liveResponse(watcher, ws.id, page.signal, {}, { token: 'one session', stillOpen: async () => true })
    expect(admitted.status).toBe(200)
    const reader = admitted.body!.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first).toContain('event: ready')
    expect(watcher.watching).toBe(5_000)
    page.abort()
    expect(watcher.watching).toBe(4_999)
  } finally {
    for (const p of pages) p.stop()
    watcher.close()
  }
})

/**
 * One session holds at most 20 of them in a process: its 21st is answered 429 with Retry-After and no
 * stream, another session is let in meanwhile, and once one of the first session's pages goes, it
 * may open one again.
 */
test('past 20 open live pages of one session, 429 with Retry-After; other sessions are let in; one page gone, one let in', async () => {
  const { sql } = await getHarness()
  const ws = await makeWorkspace()
  const watcher = new EventWatcher(sql, { everyMs: 60_000, types: LIVE_TYPES })
  const open = (token: string) => {
    const page = new AbortController()
    return { page, res: liveResponse(watcher, ws.id, page.signal, {}, { token, stillOpen: async () => true }) }
  }
  const pages: AbortController[] = []
  try {
    for (let i = 0; i < 20; i++) {
      const { page, res } = open('session A')
      expect(res.status).toBe(200)
      pages.push(page)
    }
    const refused = open('session A').res
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('60')
    expect(await refused.text()).toBe('retry: 60000\n\n')
    expect(watcher.watching).toBe(20)
    const other = open('session B')
    expect(other.res.status).toBe(200)
    pages.push(other.page)
    pages.shift()!.abort()
    const again = open('session A')
    expect(again.res.status).toBe(200)
    pages.push(again.page)
    expect(watcher.watching).toBe(21)
  } finally {
    for (const p of pages) p.abort()
    watcher.close()
  }
  expect(watcher.watching).toBe(0)
})
