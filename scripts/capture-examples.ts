/**
 * Capture the response examples of the OpenAPI document from real answers:
 *   npm run examples:capture
 * Starts a server on a fresh embedded database with the demo workspace, sends every operation's
 * declared example request (the example ids swapped for the demo's), and writes the answers,
 * shortened to two items a list, to server/src/http/openapi/examples.json. The document shows them
 * on each operation's success; test/server/openapi.test.ts fails when one no longer matches its
 * schema, or an operation has none.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../server/src/config.ts'
import { createLogger } from '../server/src/core/log.ts'
import { createDemoWorkspace } from '../server/src/demo/index.ts'
import { operations } from '../server/src/http/operations.ts'
import { EXAMPLE } from '../server/src/routes/examples.ts'
import { startServer } from '../server/src/server.ts'
import { openDatabase } from '../server/src/store/db.ts'

const OUT = join(import.meta.dir, '..', 'server', 'src', 'http', 'openapi', 'examples.json')
const dataDir = mkdtempSync(join(tmpdir(), 'growth-examples-'))
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' })
const db = await openDatabase({ dataDir, databaseUrl: undefined })
const server = await startServer(config, { db, log: createLogger('warn') })
try {
  const demo = await createDemoWorkspace(db.sql)
  const agent = demo.agents[0]!
  const call = async (method: string, path: string, token: string | undefined, body?: unknown) => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as Record<string, unknown> }
  }
  // An authorization of the demo's agent, for the example result.
  const allowed = await call('POST', '/agent/authorize', agent.credential, { tool: 'ads', action: 'pause_campaign', resource: demo.fixtures.campaignId })
  const ids: Record<string, string> = {
    [EXAMPLE.mission]: demo.fixtures.missionId,
    [EXAMPLE.decision]: demo.fixtures.decisionId,
    [EXAMPLE.abTest]: demo.fixtures.openAbTestId,
    [EXAMPLE.emailSend]: demo.fixtures.emailSendId,
    [EXAMPLE.campaign]: demo.fixtures.campaignId,
    [EXAMPLE.list]: demo.fixtures.listId,
    [EXAMPLE.agent]: agent.id,
    [EXAMPLE.authorization]: (allowed.body.data as { authorizationId: string }).authorizationId,
  }
  const real = <T>(value: T): T => JSON.parse(JSON.stringify(value).replace(/\b(?:msn|dec|abt|snd|cmp|lst|seg|agt|auth)_[0-9a-z]{26}\b/g, (id) => ids[id] ?? id))

  const examples: Record<string, unknown> = {}
  for (const op of operations) {
    if (op.kind === 'item' && op.bare) continue
    const token = op.auth.kind === 'public' ? undefined : op.auth.kind === 'agent' ? agent.credential : demo.tokens.live
    const query = op.kind === 'write' ? '' : new URLSearchParams(real(op.example?.query ?? {})).toString()
    const answer =
      op.kind === 'write'
        ? await call('POST', op.path, token, real(op.example.body))
        : await call('GET', `${op.path}${query ? `?${query}` : ''}`, token)
    if (answer.status >= 300) throw new Error(`${op.operationId}: the example answered ${answer.status} ${JSON.stringify(answer.body)}`)
    examples[op.operationId] = shorten(answer.body)
  }
  writeFileSync(OUT, `${JSON.stringify(examples, null, 2)}\n`)
  console.log(`wrote ${Object.keys(examples).length} examples to server/src/http/openapi/examples.json`)
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
