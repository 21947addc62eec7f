import { afterAll, describe, expect, test } from 'bun:test'
import { sampleEvent } from '../../server/src/domain/event-samples.ts'
import net from 'node:net'
import { getHarness } from '../harness.ts'
import { appendEvents } from '../../server/src/store/events.ts'
import { attemptsOf, endpoint, importContacts, receiver, rig, until } from './support.ts'

/**
 * One endpoint that hangs, answers slowly or has a backlog never holds up another's deliveries:
 * each endpoint has a bound on deliveries out at once, sends that outlast a moment stop counting
 * against the worker's slots (so even many hanging endpoints leave the rest room), the time-out
 * covers the whole exchange (a body dribbled slowly is cut), and claims take endpoints in turns (a
 * backlog at one does not queue another's first delivery behind it). Each test states its
 * condition as an order of events, not a timing: the healthy endpoint's deliveries all arrive while
 * the others still hold what they hold.
 */

const held: (() => void)[] = []
afterAll(() => {
  for (const release of held) release()
})

/** A receiver that takes every request and never answers until the test releases it. */
function hanging() {
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  held.push(release)
  const r = receiver(async () => {
    await gate
    return new Response('late')
  })
  return { ...r, release }
}

/** `n` contact.created events committed at once in the workspace (fan-out to each endpoint). */
async function commitEvents(workspaceId: string, n: number) {
  const { sql } = await getHarness()
  for (let done = 0; done < n; done += 1000) {
    // Each a contact.created as the server emits one (the receivers check every body against its schema).
    const batch = Array.from({ length: Math.min(1000, n - done) }, (_, i) => {
      const data = sampleEvent('contact.created').data as { contact: { id: string; email: string } }
      data.contact.email = `backlog-${done + i}@example.com`
      return { type: 'contact.created' as const, data }
    })
    await sql.begin((tx) => appendEvents(tx, workspaceId, batch))
  }
}

describe('webhook isolation', () => {
  test('a hanging receiver does not delay another endpoint: every delivery to the healthy one arrives while the hanging one holds its sends', async () => {
    const r = await rig({ WEBHOOK_TIMEOUT_MS: '60000' })
    const stuck = hanging()
    const ok = receiver()
    try {
      await endpoint(r, stuck.url, 'contact.created')
      await endpoint(r, ok.url, 'contact.created')
      await importContacts(r.ws, 40)
      await until('the healthy endpoint has every delivery', () => ok.got.length === 40, 20_000)
      // The hanging one still holds its bound on deliveries out (none answered), no more.
      expect(stuck.got.length).toBe(8)
    } finally {
      stuck.release()
      await r.done()
      stuck.stop()
      ok.stop()
    }
  }, 40_000)

  test('the bound is each worker process\'s own: two of them hold 8 each at a hanging endpoint, and the healthy one gets every delivery', async () => {
    // Two worker sets, as two `growth worker` processes are (each its own lease owner), on one queue.
    const r = await rig({ WEBHOOK_TIMEOUT_MS: '60000' })
    const second = await rig({ WEBHOOK_TIMEOUT_MS: '60000' })
    const stuck = hanging()
    const ok = receiver()
    try {
      const e = await endpoint(r, stuck.url, 'contact.created')
      await endpoint(r, ok.url, 'contact.created')
      await importContacts(r.ws, 40)
      await until('the healthy endpoint has every delivery', () => ok.got.length === 40, 20_000)
      await until('each worker holds its bound at the hanging endpoint', () => stuck.got.length === 16, 20_000)
      const { sql } = await getHarness()
      const held = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ${e.id} AND status = 'delivering' GROUP BY lease_owner`
      expect(held.map((h) => h.n)).toEqual([8, 8])
      // No more than that, with 24 of its deliveries still waiting.
      await Bun.sleep(300)
      expect(stuck.got.length).toBe(16)
    } finally {
      stuck.release()
      await second.done()
      await r.done()
      stuck.stop()
      ok.stop()
    }
  }, 40_000)

  test('many hanging endpoints hold a bounded share of the worker: a healthy endpoint still gets every delivery', async () => {
    // Ten endpoints hanging at their bound of 8 each would hold 80 sends: more than a worker's 64 slots.
    const r = await rig({ WEBHOOK_TIMEOUT_MS: '60000' })
    const stuck = Array.from({ length: 10 }, () => hanging())
    const ok = receiver()
    try {
      for (const s of stuck) await endpoint(r, s.url, 'contact.created')
      await endpoint(r, ok.url, 'contact.created')
      await importContacts(r.ws, 20)
      await until('every hanging endpoint holds its bound', () => stuck.every((s) => s.got.length === 8), 20_000)
      await importContacts(r.ws, 20, 'later')
      await until('the healthy endpoint has every delivery, the later ones too', () => ok.got.length === 40, 20_000)
      expect(stuck.map((s) => s.got.length)).toEqual(stuck.map(() => 8))
    } finally {
      for (const s of stuck) s.release()
      await r.done()
      for (const s of stuck) s.stop()
      ok.stop()
    }
  }, 60_000)

  test('a receiver that sends its headers then dribbles its body is cut at the time-out', async () => {
    // Raw TCP: the status line and headers at once, then one byte of body every 100 ms, for ever.
    const sockets = new Set<net.Socket>()
    let requests = 0
    const server = net.createServer((sock) => {
      sockets.add(sock)
      sock.on('error', () => {})
      sock.once('data', () => {
        requests++
        sock.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n')
        const drip = setInterval(() => (sock.destroyed ? clearInterval(drip) : sock.write('.')), 100)
        sock.on('close', () => clearInterval(drip))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as net.AddressInfo).port
    const r = await rig({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_SCHEDULE: '1h' })
    try {
      const e = await endpoint(r, `http://127.0.0.1:${port}/hooks`, 'contact.created')
      const started = Date.now()
      await importContacts(r.ws, 1)
      await until('the attempt recorded', async () => (await attemptsOf(e.id)).length === 1, 15_000)
      const [a] = await attemptsOf(e.id)
      expect(requests).toBe(1)
      expect(a!.status_code).toBeNull()
      expect(a!.error).toBe('No complete answer within 1000 ms.')
      expect(a!.next_attempt_at).not.toBeNull()
      // Cut at the time-out, not when the receiver stops dribbling (it never does).
      expect(Date.now() - started).toBeLessThan(10_000)
      await until('the connection closed by the worker', () => [...sockets].every((s) => s.destroyed), 5_000)
    } finally {
      await r.done()
      for (const s of sockets) s.destroy()
      server.close()
    }
  }, 30_000)

  test('a backlog of thousands at one endpoint does not hold back the first delivery to another', async () => {
    const backlog = 5000
    // The backlog is waiting before any worker runs.
    const r = await rig({}, { workers: 0 })
    const busy = receiver()
    const other = receiver()
    const second = await rig({}, { workers: 0 })
    try {
      await endpoint(r, busy.url, 'contact.created')
      await commitEvents(r.ws.id, backlog)
      // The workers start on the backlog; once they are at it, another workspace's endpoint gets an event.
      const w = await rig({})
      try {
        await until('the backlog being delivered', () => busy.got.length >= 50, 20_000)
        await endpoint(second, other.url, 'contact.created')
        await importContacts(second.ws, 1)
        await until('the other endpoint has its delivery', () => other.got.length === 1, 20_000)
        // It arrived before the backlog drained.
        expect(busy.got.length).toBeLessThan(backlog)
      } finally {
        await w.done()
      }
    } finally {
      await second.done()
      await r.done()
      busy.stop()
      other.stop()
    }
  }, 90_000)
})
