import { describe, expect, test } from 'bun:test'
import { growthIn, jsonOf } from '../cli/run.ts'
import { getHarness } from '../harness.ts'
import { setEndpointEnabled } from '../../server/src/domain/webhooks.ts'
import { deliveriesOf, endpoint, endpointRow, importContacts, receiver, rig, until } from './support.ts'

/**
 * Recovery (issue 30, item 4; docs/webhooks.md "Enabling an endpoint again"): an endpoint enabled
 * again by a person (`growth admin webhook enable`, run here as an operator runs it, a process of its
 * own) is sent what failed to it in the last 72 hours (its schedule ran out), at the drain rate,
 * oldest first, once each. Not a replay: what succeeded is not sent again, and what failed longer
 * ago than that stays failed. The receiver is a real HTTP server, down until the endpoint is
 * disabled, then up; the deliveries go through real workers.
 */

const DRAIN_RATE = 5
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8', WEBHOOK_DRAIN_RATE: String(DRAIN_RATE) }

describe('enabling an endpoint again', () => {
  test('sends every delivery that failed in the last 72 hours exactly once, oldest first, at the drain rate; nothing that succeeded, nothing older', async () => {
    // One retry, 50 ms after the first attempt: a delivery fails for good within a moment.
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '50ms', WEBHOOK_DRAIN_RATE: String(DRAIN_RATE), WEBHOOK_BREAKER_THRESHOLD: '1000' })
    let up = true
    const rcv = receiver(() => new Response(up ? 'ok' : 'down', { status: up ? 200 : 503 }))
    const { sql, dataDir } = await getHarness()
    const growth = growthIn(dataDir)
    const eventOf = (body: string) => (JSON.parse(body) as { id: string }).id
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      // One delivery succeeds while the receiver is up.
      await importContacts(r.ws, 1, 'ok')
      await until('the first delivery made', async () => (await deliveriesOf(e.id))[0]?.status === 'succeeded')
      const succeeded = (await deliveriesOf(e.id))[0]!

      // The receiver goes down; six events, one at a time (each created after the one before), fail for good.
      up = false
      for (let i = 0; i < 6; i++) {
        const before = Date.now()
        await until('the clock to move on', () => Date.now() > before + 2)
        await importContacts(r.ws, 1, `down${i}`)
      }
      await until('six deliveries failed for good', async () => (await deliveriesOf(e.id)).filter((d) => d.status === 'failed').length === 6)
      const failed = (await deliveriesOf(e.id)).filter((d) => d.status === 'failed')
      const sentWhileDown = rcv.got.length
      expect(sentWhileDown).toBe(1 + 6 * 2)

      // The oldest failed 73 hours ago (its event 75): out of reach. The third failed 71 hours ago,
      // its event 74 hours ago: within the 72 hours, which count from the failure, and now the
      // oldest. The two newest were still waiting for a retry when the endpoint was disabled (a
      // backlog, due 50 ms after its event: set once it is disabled): what failed is older, so it goes first.
      const [tooOld, second, lateFailure, fourth, ...waiting] = failed
      await sql`UPDATE webhook_deliveries SET created_at = now() - interval '75 hours', next_attempt_at = now() - interval '73 hours' WHERE id = ${tooOld!.id}`
      await sql`UPDATE webhook_deliveries SET created_at = now() - interval '74 hours', next_attempt_at = now() - interval '71 hours' WHERE id = ${lateFailure!.id}`
      const expected = [lateFailure!, second!, fourth!, ...waiting].map((d) => d.event_id)

      // An operator disables it; the receiver comes back; two operators enable it at once.
      expect((await growth(['admin', 'webhook', 'disable', e.id], ENV)).code).toBe(0)
      await sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = created_at + interval '50 milliseconds' WHERE id = ANY (${waiting.map((d) => d.id)})`
      up = true
      const enabledAt = Date.now()
      const [human, json] = await Promise.all([growth(['admin', 'webhook', 'enable', e.id], ENV), growth(['admin', 'webhook', 'enable', e.id, '--json'], ENV)])
      expect(human.code).toBe(0)
      const answer = jsonOf(json, 'admin webhook enable --json')
      expect(answer.id).toBe(e.id)
      expect(answer.status).toBe('enabled')
      // Between them they queued the three that failed once: one of them all three, the other none.
      expect([0, 3]).toContain(answer.requeued)
      const byHuman = 3 - answer.requeued
      expect(human.stdout).toContain(
        byHuman === 3
          ? `Enabled ${e.id}: 3 deliveries that failed in the last 72 hours go again, oldest first, at ${DRAIN_RATE} a second.`
          : `Enabled ${e.id}: nothing failed to it in the last 72 hours`,
      )

      await until('the five deliveries made (three recovered, two waiting)', async () => (await deliveriesOf(e.id)).filter((d) => d.status === 'succeeded').length === 6, 15_000)
      const recovered = rcv.got.slice(sentWhileDown)
      // Each once, oldest first (what failed before the backlog that waited), and no faster than the drain rate lets them start.
      expect(recovered.map((g) => eventOf(g.body))).toEqual(expected)
      const lastAt = recovered.at(-1)!.at
      expect(lastAt - enabledAt).toBeGreaterThanOrEqual(((expected.length - 1) * 1000) / DRAIN_RATE)

      // Enabling again now queues nothing: the five succeeded, the one too old stays failed.
      expect(jsonOf(await growth(['admin', 'webhook', 'enable', e.id, '--json'], ENV), 'admin webhook enable --json')).toEqual({ id: e.id, status: 'enabled', requeued: 0 })
      const after = await deliveriesOf(e.id)
      expect(after.find((d) => d.id === tooOld!.id)!.status).toBe('failed')
      expect(after.find((d) => d.id === succeeded.id)!.attempts).toBe(1)
      // Each made one more attempt; its two failed attempts stay in its history.
      for (const id of expected) expect(after.find((d) => d.event_id === id)!.attempts).toBe(3)
      const history = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = ${e.id}`
      expect(history[0]!.n).toBe(1 + 6 * 2 + 5)
      // Nothing pending or out: nothing more can come, and the receiver got each event once.
      expect(after.filter((d) => d.status === 'pending' || d.status === 'delivering')).toEqual([])
      expect(rcv.got.length).toBe(sentWhileDown + 5)
      expect(new Set(rcv.got.filter((g) => g.at >= enabledAt).map((g) => eventOf(g.body))).size).toBe(5)
    } finally {
      rcv.stop()
      await r.done()
    }
  }, 60_000)

  test('a failure while the recovered deliveries drain does not end the pace: the rest still go at the drain rate', async () => {
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '50ms', WEBHOOK_DRAIN_RATE: String(DRAIN_RATE), WEBHOOK_BREAKER_THRESHOLD: '1000' })
    let answers = 0
    let mode: 'down' | 'one-fails' = 'down'
    const rcv = receiver(() => {
      if (mode === 'down') return new Response('down', { status: 503 })
      // Back up: the first recovered delivery is refused, the rest taken.
      return new Response(answers++ === 0 ? 'not yet' : 'ok', { status: answers === 1 ? 500 : 200 })
    })
    const { sql } = await getHarness()
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      for (let i = 0; i < 6; i++) {
        const before = Date.now()
        await until('the clock to move on', () => Date.now() > before + 2)
        await importContacts(r.ws, 1, `pace${i}`)
      }
      await until('six deliveries failed for good', async () => (await deliveriesOf(e.id)).filter((d) => d.status === 'failed').length === 6)
      await setEndpointEnabled(sql, e.id, false)
      const sentWhileDown = rcv.got.length
      mode = 'one-fails'
      const enabledAt = Date.now()
      expect(await setEndpointEnabled(sql, e.id, true)).toEqual({ id: e.id, status: 'enabled', requeued: 6 })
      await until('five delivered, one failed again', async () => {
        const ds = await deliveriesOf(e.id)
        return ds.filter((d) => d.status === 'succeeded').length === 5 && ds.filter((d) => d.status === 'failed').length === 1
      }, 15_000)
      const after = rcv.got.slice(sentWhileDown)
      expect(after).toHaveLength(6)
      // Six starts at 5 a second take at least a second, failure or not (a flood takes milliseconds).
      expect(after.at(-1)!.at - enabledAt).toBeGreaterThanOrEqual((5 * 1000) / DRAIN_RATE)
    } finally {
      rcv.stop()
      await r.done()
    }
  }, 60_000)

  test('an endpoint whose circuit opened and that was disabled for failing gets what failed, once its person enables it', async () => {
    // Two failures open the circuit; each delivery's one retry is a probe that fails; failing for 3 s disables it.
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '50ms', WEBHOOK_BREAKER_THRESHOLD: '2', WEBHOOK_BREAKER_COOLDOWN: '100ms', WEBHOOK_DISABLE_AFTER: '3s', WEBHOOK_DRAIN_RATE: '20' })
    let up = false
    const rcv = receiver(() => new Response(up ? 'ok' : 'down', { status: up ? 200 : 500 }))
    const { sql } = await getHarness()
    try {
      const e = await endpoint(r, rcv.url, 'contact.created')
      for (let i = 0; i < 2; i++) {
        const before = Date.now()
        await until('the clock to move on', () => Date.now() > before + 2)
        await importContacts(r.ws, 1, `away${i}`)
      }
      await until('both failed and the endpoint disabled for failing', async () => {
        const ds = await deliveriesOf(e.id)
        return ds.length === 2 && ds.every((d) => d.status === 'failed') && (await endpointRow(e.id)).status === 'disabled'
      }, 15_000)
      expect((await endpointRow(e.id)).disabled_reason).toStartWith('Failing without a success since')
      const sentWhileDown = rcv.got.length
      up = true
      expect(await setEndpointEnabled(sql, e.id, true)).toEqual({ id: e.id, status: 'enabled', requeued: 2 })
      await until('both delivered', async () => (await deliveriesOf(e.id)).every((d) => d.status === 'succeeded'))
      expect(rcv.got.slice(sentWhileDown).map((g) => (JSON.parse(g.body) as { id: string }).id)).toEqual((await deliveriesOf(e.id)).map((d) => d.event_id))
      expect(await setEndpointEnabled(sql, e.id, true)).toEqual({ id: e.id, status: 'enabled', requeued: 0 })
    } finally {
      rcv.stop()
      await r.done()
    }
  }, 60_000)
})
