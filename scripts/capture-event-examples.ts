/**
 * Capture one example of every event type from real emissions:
 *   bun scripts/capture-event-examples.ts
 * Starts a server on a fresh embedded database with the demo workspace, reads the events the demo
 * emitted through GET /events, causes the two the demo does not (an operator applying a policy:
 * agent.policy.changed; an operator's test delivery: webhook.test), and writes the first event of
 * each type, lists shortened to two items, to server/src/schemas/event-examples.json. The OpenAPI
 * document shows each on its `webhooks` entry; `growth admin webhook test --event TYPE` and
 * `growth listen --trigger TYPE` send it as a sample. test/server/event-payloads.test.ts fails when
 * one no longer validates against its type's schema, or a type has none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../server/src/config.ts'
import { EVENT_TYPES } from '../server/src/core/event-types.ts'
import { createLogger } from '../server/src/core/log.ts'
import { applyPolicy } from '../server/src/domain/agent-policy-apply.ts'
import { policyYaml } from '../server/src/domain/agent-policy-document.ts'
import { exportPolicy } from '../server/src/domain/agent-policy-export.ts'
import { planPolicy } from '../server/src/domain/agent-policy-plan.ts'
import { operatorDecider } from '../server/src/domain/deciders.ts'
import { createEndpoint, sendTestEvent, setEndpointEnabled } from '../server/src/domain/webhooks.ts'
import { createDemoWorkspace } from '../server/src/demo/index.ts'
import { startServer } from '../server/src/server.ts'
import { openDatabase } from '../server/src/store/driver/db.ts'

const OUT = join(import.meta.dir, '..', 'server', 'src', 'schemas', 'event-examples.json')
const dataDir = mkdtempSync(join(tmpdir(), 'growth-event-examples-'))
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0' })
const db = await openDatabase({ dataDir, databaseUrl: undefined })
const server = await startServer(config, { db, log: createLogger('warn') })
try {
  const demo = await createDemoWorkspace(db.sql)
  const ws = demo.workspace.id

  // An operator gives the demo's agents a new tool: agent.policy.changed.
  const text = policyYaml(await exportPolicy(db.sql, ws)).replace(
    /^tools:\n/m,
    'tools:\n  - key: github\n    name: GitHub\n    description: Issues and pull requests of the connected repositories.\n    actions:\n      - { key: create_issue, name: Open an issue, risk: low, dataUsed: [ repositories ], reversible: true }\n',
  )
  const plan = await planPolicy(db.sql, ws, text, { source: 'policy.yaml' })
  await applyPolicy(db.sql, ws, text, { source: 'policy.yaml', planId: plan.planId, appliedBy: operatorDecider('dana') })

  // An operator's test delivery: webhook.test (to an endpoint that is disabled at once; no worker runs here).
  const endpoint = await createEndpoint(
    db.sql,
    { workspaceId: ws, url: 'https://hooks.northwind-coffee.example/growth', events: 'webhook.test' },
    { addresses: config.webhooks.addresses, resolve: async () => ['93.184.215.14'] },
  )
  await sendTestEvent(db.sql, endpoint.id)
  await setEndpointEnabled(db.sql, endpoint.id, false)

  const examples: Record<string, unknown> = {}
  let after: string | undefined
  for (;;) {
    const res = await fetch(`${server.url}/api/v1/events?limit=100${after ? `&after=${encodeURIComponent(after)}` : ''}`, { headers: { Authorization: `Bearer ${demo.tokens.live}` } })
    const page = (await res.json()) as { data: { event: string }[]; meta: { nextCursor?: string } }
    if (res.status !== 200) throw new Error(`GET /events answered ${res.status} ${JSON.stringify(page)}`)
    for (const event of page.data) examples[event.event] ??= shorten(event)
    if (page.data.length < 100) break
    after = page.meta.nextCursor
  }
  const missing = EVENT_TYPES.filter((t) => !(t in examples))
  if (missing.length) throw new Error(`no example emitted for ${missing.join(', ')}`)
  const ordered = Object.fromEntries(EVENT_TYPES.map((t) => [t, examples[t]]))
  writeFileSync(OUT, `${JSON.stringify(ordered, null, 2)}\n`)
  console.log(`wrote ${EVENT_TYPES.length} event examples to server/src/schemas/event-examples.json`)
} finally {
  await server.stop()
  await db.close()
  rmSync(dataDir, { recursive: true, force: true })
}

/** At most two items in any list, so an example stays readable. */
function shorten(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 2).map(shorten)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]))
  return value
}
