/**
 * Capture the response examples of the OpenAPI document from real answers:
 *   npm run examples:capture
 * Starts a server on a fresh embedded database with the demo workspace, sends every operation's
 * declared example request (scripts/example-requests.ts: the example ids swapped for the
 * demo's), and writes the answers,
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
import { startServer } from '../server/src/server.ts'
import { openDatabase } from '../server/src/store/driver/db.ts'
import { type ExampleContext, exampleRequest } from './example-requests.ts'

const OUT = join(import.meta.dir, '..', 'server', 'src', 'http', 'openapi', 'examples.json')
const dataDir = mkdtempSync(join(tmpdir(), 'growth-examples-'))
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' })
const db = await openDatabase({ dataDir, databaseUrl: undefined })
const server = await startServer(config, { db, log: createLogger('warn') })
try {
  const demo = await createDemoWorkspace(db.sql)
  // The same requests the query-cost test and the scale bench send: scripts/example-requests.ts.
  const context: ExampleContext = { demo, base: server.url }
  const examples: Record<string, unknown> = {}
  for (const op of operations) {
    const req = await exampleRequest(op, context)
    const res = await fetch(`${server.url}/api/v1${req.path}`, req.init)
    const body = (await res.json()) as Record<string, unknown>
    if (res.status >= 300) throw new Error(`${op.operationId}: the example answered ${res.status} ${JSON.stringify(body)}`)
    examples[op.operationId] = op.kind === 'item' && op.bare ? abridged(body) : shorten(body)
  }
  writeFileSync(OUT, `${JSON.stringify(examples, null, 2)}\n`)
  console.log(`wrote ${Object.keys(examples).length} examples to server/src/http/openapi/examples.json`)
} finally {
  await server.stop()
  await db.close()
  rmSync(dataDir, { recursive: true, force: true })
}

/**
 * The document's own example (GET /openapi.json) cannot hold the document: its head and its first
 * operation, enough to show what the answer is.
 */
function abridged(doc: Record<string, any>): Record<string, unknown> {
  const [path, item] = Object.entries<Record<string, any>>(doc.paths)[0]!
  const [method, op] = Object.entries<Record<string, any>>(item)[0]!
  return {
    openapi: doc.openapi,
    info: { title: doc.info.title, version: doc.info.version },
    servers: doc.servers,
    paths: { [path]: { [method]: { operationId: op.operationId, summary: op.summary, tags: op.tags, responses: { '200': { description: op.responses['200'].description } } } } },
  }
}

/** At most two items in any list, so an example stays readable. */
function shorten(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 2).map(shorten)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]))
  return value
}
