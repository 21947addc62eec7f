/**
 * Webhook verification in the SDK against the two verifiers a receiver might otherwise use:
 * stripe-node's `webhooks.constructEvent` (its Node.js build, node:crypto; the same scheme as ours)
 * and the `standardwebhooks` package's `Webhook.verify`. Each verifies its own valid signature over
 * the same JSON body and returns the parsed event, for a 2 kB and a 200 kB body.
 *
 * Every contender runs for a fixed slice of time per round, in turn, for several rounds; the table
 * shows the median ops/s. `verifyAsync` is awaited one call at a time (latency, as a request handler
 * sees it). The goal: ours, sync and async, at least as fast as the faster of stripe and
 * standardwebhooks.
 *
 *   bun test/bench/sdk-verify.ts
 */
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import Stripe from '../../node_modules/stripe/esm/stripe.esm.node.js' // Bun resolves 'stripe' to its Web Crypto build, which has no sync constructEvent
import { Webhooks } from '../../sdk/src/webhooks.ts'

const ROUNDS = 9
const SLICE_MS = 250

/** A contact.created event padded with contacts to about `size` bytes of JSON. */
function eventBody(size: number): string {
  const contact = (i: number) => ({
    id: `ctc_01jb${String(i).padStart(22, '0')}`,
    email: `person${i}@example.com`,
    name: `Person ${i}`,
    tags: ['newsletter', 'trial'],
    fields: { plan: 'pro', company: `Company ${i}` },
    createdAt: '2026-11-20T09:30:00.000Z',
  })
  const event = { id: 'evt_01jb00000000000000000000000', event: 'contact.created', createdAt: '2026-11-20T09:30:00.000Z', workspaceId: 'ws_01jb0000000000000000000000', data: { contact: contact(0), related: [] as unknown[] } }
  for (let i = 1; JSON.stringify(event).length < size; i++) event.data.related.push(contact(i))
  return JSON.stringify(event)
}

type Contender = { name: string; run: () => unknown; async?: boolean; isolate?: () => () => void }

function contenders(body: string): Contender[] {
  const secret = `whsec_${randomBytes(32).toString('base64url')}`
  const now = () => Math.floor(Date.now() / 1000)
  const ours = Webhooks.sign(body, secret, { timestamp: now() })

  const stripe = new Stripe('sk_test_bench')
  const stripeHeader = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now() })

  const swSecret = `whsec_${randomBytes(32).toString('base64')}`
  const sw = new Webhook(swSecret)
  const swHeaders = { 'webhook-id': 'msg_bench', 'webhook-timestamp': String(now()), 'webhook-signature': sw.sign('msg_bench', new Date(), body) }

  return [
    { name: 'ours sync', run: () => Webhooks.verify(body, ours, secret) },
    { name: 'ours async', run: () => Webhooks.verifyAsync(body, ours, secret), async: true },
    {
      name: 'ours async, Web Crypto only',
      run: () => Webhooks.verifyAsync(body, ours, secret),
      async: true,
      // as on a runtime with neither Bun's nor node:crypto's HMAC (edge): hide them while this one runs
      isolate: withoutNativeHmac,
    },
    { name: 'stripe constructEvent', run: () => stripe.webhooks.constructEvent(body, stripeHeader, secret) },
    { name: 'standardwebhooks verify', run: () => sw.verify(body, swHeaders) },
  ]
}

/** Hides Bun.CryptoHasher and process.getBuiltinModule; returns what puts them back. */
function withoutNativeHmac(): () => void {
  const p = process as { getBuiltinModule?: unknown }
  const b = Bun as { CryptoHasher: unknown }
  const saved = [p.getBuiltinModule, b.CryptoHasher] as const
  p.getBuiltinModule = undefined
  b.CryptoHasher = undefined
  return () => {
    p.getBuiltinModule = saved[0]
    b.CryptoHasher = saved[1]
  }
}

/** Ops per second of one contender over one slice. */
async function slice(c: Contender): Promise<number> {
  const restore = c.isolate?.()
  try {
    let n = 0
    const start = performance.now()
    let elapsed = 0
    if (c.async) {
      const run = c.run as () => Promise<unknown>
      while ((elapsed = performance.now() - start) < SLICE_MS) {
        for (let i = 0; i < 10; i++) await run()
        n += 10
      }
    } else {
      while ((elapsed = performance.now() - start) < SLICE_MS) {
        for (let i = 0; i < 10; i++) c.run()
        n += 10
      }
    }
    return n / (elapsed / 1000)
  } finally {
    restore?.()
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const kb = (n: number) => `${Math.round(n / 1000)} kB`

const started = performance.now()
console.log(`SDK webhook verification, ${typeof Bun !== 'undefined' ? `Bun ${Bun.version}` : `Node.js ${process.version}`} on ${process.platform}-${process.arch}`)
console.log(`ops/s, median of ${ROUNDS} rounds of ${SLICE_MS} ms per contender (async: one call awaited at a time)\n`)

const rows: { size: string; results: Map<string, number> }[] = []
for (const size of [2_000, 200_000]) {
  const body = eventBody(size)
  const cs = contenders(body)
  for (const c of cs) {
    // each must accept its own signature before it is timed
    const restore = c.isolate?.()
    const event = (await c.run()) as { id?: string }
    restore?.()
    if (event?.id !== 'evt_01jb00000000000000000000000') throw new Error(`${c.name} did not return the event`)
  }
  for (const c of cs) await slice(c) // warm-up
  const samples = new Map(cs.map((c) => [c.name, [] as number[]]))
  for (let r = 0; r < ROUNDS; r++) for (const c of r % 2 ? [...cs].reverse() : cs) samples.get(c.name)!.push(await slice(c))
  rows.push({ size: kb(Buffer.byteLength(body)), results: new Map([...samples].map(([name, xs]) => [name, median(xs)])) })
}

const names = [...rows[0]!.results.keys()]
const widths = names.map((n) => Math.max(n.length, 10))
console.log(['body  ', ...names.map((n, i) => n.padStart(widths[i]!))].join('  '))
for (const row of rows) console.log([row.size.padEnd(6), ...names.map((n, i) => fmt(row.results.get(n)!).padStart(widths[i]!))].join('  '))
console.log()
for (const row of rows) {
  const target = Math.max(row.results.get('stripe constructEvent')!, row.results.get('standardwebhooks verify')!)
  for (const ours of ['ours sync', 'ours async']) {
    const x = row.results.get(ours)! / target
    console.log(`goal (${row.size}, ${ours}): at least the faster of stripe and standardwebhooks: ${x >= 1 ? 'met' : 'not met'} (${x.toFixed(2)}x)`)
  }
}
console.log(`\n(${((performance.now() - started) / 1000).toFixed(1)} s)`)
