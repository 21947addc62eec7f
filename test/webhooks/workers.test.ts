import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { getHarness, makeWorkspace } from '../harness.ts'
import { attemptsOf, deliveriesOf, endpointRow, importContacts, receiver, settings, until } from './support.ts'
import { createEndpoint, setEndpointEnabled } from '../../server/src/domain/webhooks.ts'

/**
 * `growth worker` as an operator runs it: separate processes sharing the delivery queue through the
 * database. Any number share the work and each delivery is made once; a worker killed mid-delivery
 * leaves a lease that runs out, and another makes the delivery (with the same event id); a worker
 * told to stop finishes what it has out first.
 */

const ROOT = join(import.meta.dir, '..', '..')

async function worker(env: Record<string, string>) {
  const { dataDir } = await getHarness()
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8', LOG_LEVEL: 'silent', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  // Running once it says so.
  const reader = proc.stderr.getReader()
  let said = ''
  while (!said.includes('running')) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`growth worker exited: ${said}`)
    said += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return proc
}

async function endpointFor(workspaceId: string, url: string) {
  const { sql } = await getHarness()
  return createEndpoint(sql, { workspaceId, url, events: 'contact.created' }, { addresses: settings().addresses })
}

describe('growth worker', () => {
  test('a worker killed mid-delivery: its lease runs out and another worker makes the delivery, with the same event id', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    // The first request is held (its worker is killed meanwhile); later ones are answered.
    const rcv = receiver((_, n) => (n === 1 ? new Promise<Response>(() => {}) : new Response('ok')))
    const e = await endpointFor(ws.id, rcv.url)
    // The kill must land while the first worker waits for its answer (3 s to land in, on a loaded machine).
    const env = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_RETRY_SCHEDULE: '100ms' }
    const first = await worker(env)
    let second: Awaited<ReturnType<typeof worker>> | undefined
    try {
      await importContacts(ws, 1)
      await until('the first worker mid-delivery', () => rcv.got.length === 1)
      first.kill('SIGKILL')
      await first.exited
      expect((await deliveriesOf(e.id))[0]!.status).toBe('delivering')
      second = await worker(env)
      // The lease (2 x the time-out + 1 s: 7 s) runs out, and the second worker delivers it; the bound only stops a hang.
      await until('the delivery made again', async () => (await deliveriesOf(e.id))[0]!.status === 'succeeded', 30_000)
      expect(rcv.got).toHaveLength(2)
      expect(rcv.got[1]!.headers['x-service-event-id']).toBe(rcv.got[0]!.headers['x-service-event-id'])
      expect(rcv.got[1]!.headers['x-service-delivery-id']).toBe(rcv.got[0]!.headers['x-service-delivery-id'])
      expect((await attemptsOf(e.id)).map((a) => [a.attempt, a.status_code])).toEqual([[2, 200]])
    } finally {
      first.kill()
      second?.kill('SIGTERM')
      await second?.exited
      rcv.stop()
      await setEndpointEnabled(sql, e.id, false)
    }
  }, 60_000)

  test('a worker stalled past its lease (SIGSTOP) while another made the delivery: resumed, its late failure is recorded as an attempt and undoes nothing; nothing is sent a third time', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    // The first request is held (its worker is stopped meanwhile, then times out once resumed); later ones are answered.
    const rcv = receiver((_, n) => (n === 1 ? new Promise<Response>(() => {}) : new Response('ok')))
    const e = await endpointFor(ws.id, rcv.url)
    // The stop must land while the first worker waits for its answer, not after its time-out, when it
    // records the failure (stopped inside that transaction, it would hold the delivery's row until
    // PostgreSQL ends the transaction, and its attempt would not be recorded): 3 s to land in, on a
    // loaded machine. The lease is then 7 s (2 x the time-out + 1 s).
    const env = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' }
    const first = await worker(env)
    let second: Awaited<ReturnType<typeof worker>> | undefined
    try {
      await importContacts(ws, 1)
      await until('the first worker mid-delivery', () => rcv.got.length === 1)
      first.kill('SIGSTOP')
      second = await worker(env)
      // The bound only stops a hang (a loaded CI machine once took more than 15 s).
      await until('the delivery made by the second worker', async () => (await deliveriesOf(e.id))[0]!.status === 'succeeded', 30_000)
      first.kill('SIGCONT')
      // Resumed, the first worker's send times out (3 s, passed while it was stopped) and is recorded: that attempt, and nothing more.
      await until('the late attempt recorded', async () => (await attemptsOf(e.id)).length === 2, 10_000)
      await Bun.sleep(1_000)
      expect(rcv.got).toHaveLength(2)
      expect((await deliveriesOf(e.id)).map((d) => [d.status, d.attempts])).toEqual([['succeeded', 2]])
      expect((await attemptsOf(e.id)).map((a) => [a.attempt, a.status_code]).sort()).toEqual([[1, null], [2, 200]])
      expect((await endpointRow(e.id)).consecutive_failures).toBe(0)
    } finally {
      first.kill('SIGCONT')
      first.kill('SIGKILL')
      second?.kill('SIGTERM')
      await second?.exited
      rcv.stop()
      await setEndpointEnabled(sql, e.id, false)
    }
  }, 60_000)

  test('SIGTERM: the worker finishes the delivery it has out, records it, and exits 0', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const rcv = receiver(async () => {
      await Bun.sleep(800)
      return new Response('ok')
    })
    const e = await endpointFor(ws.id, rcv.url)
    const w = await worker({})
    try {
      await importContacts(ws, 1)
      await until('a delivery out', () => rcv.got.length === 1)
      w.kill('SIGTERM')
      expect(await w.exited).toBe(0)
      expect((await deliveriesOf(e.id))[0]!.status).toBe('succeeded')
      expect((await attemptsOf(e.id)).map((a) => a.status_code)).toEqual([200])
    } finally {
      w.kill()
      rcv.stop()
      await setEndpointEnabled(sql, e.id, false)
    }
  }, 30_000)

  test('three workers share the queue: every delivery made, none twice', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const a = receiver()
    const b = receiver()
    const ea = await endpointFor(ws.id, a.url)
    const eb = await endpointFor(ws.id, b.url)
    const workers = await Promise.all([worker({}), worker({}), worker({})])
    try {
      for (let i = 0; i < 4; i++) await importContacts(ws, 50, `w${i}-`)
      await until('every delivery', () => a.got.length + b.got.length >= 400, 30_000)
      await Bun.sleep(300)
      for (const r of [a, b]) {
        const ids = r.got.map((g) => g.headers['x-service-delivery-id'])
        expect(ids).toHaveLength(200)
        expect(new Set(ids).size).toBe(200)
      }
      for (const e of [ea, eb]) expect((await deliveriesOf(e.id)).every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true)
    } finally {
      for (const w of workers) w.kill('SIGTERM')
      await Promise.all(workers.map((w) => w.exited))
      a.stop()
      b.stop()
      await setEndpointEnabled(sql, ea.id, false)
      await setEndpointEnabled(sql, eb.id, false)
    }
  }, 60_000)
})
