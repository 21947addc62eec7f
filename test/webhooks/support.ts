import { loadConfig, type WebhookSettings } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import type { Resolver } from '../../server/src/domain/webhook-addresses.ts'
import { createEndpoint, setEndpointEnabled } from '../../server/src/domain/webhooks.ts'
import { type DeliveryWorkers, startDeliveryWorkers } from '../../server/src/workers/webhooks.ts'
import { getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { checkReceived } from '../support/event-models.ts'

/**
 * What the webhook tests share: real HTTP receivers on this machine, delivery workers with the
 * settings a test asks for (through the same WEBHOOK_* variables an operator sets), and endpoints
 * in fresh workspaces of the shared test database. A test stops its workers and disables its
 * endpoints when it ends, so no other test's workers ever deliver to them.
 */

export type Received = { at: number; headers: Record<string, string>; body: string; path: string }

/**
 * A receiver that records what it gets and answers as `answer` says (default 200). Every body is
 * held against its event type's schema in the OpenAPI document's webhooks: one that does not match
 * fails the running test, naming the type and what differs (support/event-models.ts).
 */
export function receiver(answer: (r: Received, n: number) => Response | Promise<Response> = () => new Response('ok')) {
  const got: Received[] = []
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const r = { at: Date.now(), headers: Object.fromEntries(req.headers), body: await req.text(), path: url.pathname }
      got.push(r)
      checkReceived(r.body)
      return answer(r, got.length)
    },
  })
  return { url: `http://127.0.0.1:${server.port}/hooks`, port: server.port, got, stop: () => server.stop(true) }
}

/** Settings as an operator would set them, with the defaults for the rest; local receivers are allowed. */
export function settings(env: Record<string, string> = {}): WebhookSettings {
  return loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8', ...env }).webhooks
}

export type Rig = { ws: Workspace; workers: DeliveryWorkers; endpoints: string[]; done(): Promise<void> }

/** A workspace, delivery workers with these settings, and a way to end it all. */
export async function rig(env: Record<string, string> = {}, opts: { resolve?: Resolver; ca?: string; workers?: number } = {}): Promise<Rig> {
  const { sql } = await getHarness()
  const ws = await makeWorkspace()
  const s = settings(env)
  const workers = await startDeliveryWorkers({ sql, log: createLogger('silent'), settings: s, resolve: opts.resolve, ca: opts.ca }, opts.workers ?? 1)
  const endpoints: string[] = []
  return {
    ws,
    workers,
    endpoints,
    async done() {
      await workers.stop()
      for (const id of endpoints) await setEndpointEnabled(sql, id, false)
    },
  }
}

/** An endpoint of the rig's workspace (saved as an operator would, the guard checking it). */
export async function endpoint(r: Rig, url: string, events: string, opts: { resolve?: Resolver } = {}) {
  const { sql } = await getHarness()
  const e = await createEndpoint(sql, { workspaceId: r.ws.id, url, events }, { addresses: settings().addresses, resolve: opts.resolve })
  r.endpoints.push(e.id)
  return e
}

/** Waits until `check` holds (polling), or fails naming what it waited for. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(20)
  }
}

/** The attempts to an endpoint, oldest first, as the database keeps them. */
export async function attemptsOf(endpointId: string) {
  const { sql } = await getHarness()
  return sql<{ delivery_id: string; attempt: number; status_code: number | null; error: string | null; address: string | null; created_at: Date; next_attempt_at: Date | null; event_id: string }[]>`
    SELECT delivery_id, attempt, status_code, error, address, created_at, next_attempt_at, event_id
    FROM webhook_attempts WHERE endpoint_id = ${endpointId} ORDER BY created_at, attempt`
}

export async function endpointRow(endpointId: string) {
  const { sql } = await getHarness()
  const [row] = await sql<{ status: string; disabled_reason: string | null; circuit: string; circuit_open_until: Date | null; cooldown_ms: number; draining: boolean; consecutive_failures: number }[]>`
    SELECT status, disabled_reason, circuit, circuit_open_until, cooldown_ms, draining, consecutive_failures FROM webhook_endpoints WHERE id = ${endpointId}`
  return row!
}

export async function deliveriesOf(endpointId: string) {
  const { sql } = await getHarness()
  return sql<{ id: string; status: string; attempts: number; event_id: string }[]>`
    SELECT id, status, attempts, event_id FROM webhook_deliveries WHERE endpoint_id = ${endpointId} ORDER BY event_seq`
}

/** A change that emits `contact.created` once per address: n events through the API. */
export async function importContacts(ws: Workspace, n: number, prefix = 'p') {
  const { url } = await getHarness()
  const contacts = Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}-${Date.now()}@example.com` }))
  const res = await fetch(`${url}/api/v1/contacts`, { method: 'POST', headers: { Authorization: `Bearer ${ws.live}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ contacts }) })
  if (res.status !== 201) throw new Error(`import: ${res.status} ${await res.text()}`)
}
