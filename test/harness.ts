import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../server/src/config.ts'
import { createAgent } from '../server/src/domain/agents.ts'
import { createToken } from '../server/src/domain/credentials.ts'
import { createWorkspace } from '../server/src/domain/workspaces.ts'
import { MemoryLimiter } from '../server/src/http/rate-limit.ts'
import { createLogger } from '../server/src/core/log.ts'
import { startServer, type RunningServer } from '../server/src/server.ts'
import { type Answer, callAt } from './support/http-call.ts'
import { openDatabase, type Database, type Sql } from '../server/src/store/driver/db.ts'

/**
 * The test harness: one real server on one real database per test process, shared by every test
 * file (bun runs them in one process). The database is the PostgreSQL server at DATABASE_URL when
 * set, otherwise an embedded PGlite in a fresh temporary directory. Tests talk to it over HTTP.
 */
export type Harness = { server: RunningServer; url: string; sql: Sql; db: Database; dataDir: string }

let harness: Promise<Harness> | undefined

export function getHarness(): Promise<Harness> {
  harness ??= (async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-test-'))
    // No webhook workers in the shared server: the webhook tests run their own, with their own settings.
    const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', CALL_COUNT_FLUSH_MS: '100', WEBHOOK_WORKERS: '0' })
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir, poolMax: 8 })
    const server = await startServer(config, {
      db,
      log: createLogger(process.env.TEST_LOG ? 'info' : 'silent'),
      // Failed authentication is throttled per address; the suite makes many on purpose, from
      // one address. The throttle has its own test with its own small limit.
      authFailures: new MemoryLimiter(100_000, 60_000),
      // Likewise calls without a credential (the index, the OpenAPI document): the fault suite's generated
      // requests alone make hundreds. The anonymous limit has its own test with its own small limit.
      anonymous: new MemoryLimiter(100_000, 3_600_000),
    })
    return { server, url: server.url, sql: db.sql, db, dataDir }
  })()
  return harness
}

export type Workspace = {
  id: string
  live: string
  test: string
  /** A live token with only the scopes named in `scoped`. */
  scoped: string
  agent: { id: string; credential: string }
}

let counter = 0

/** A fresh workspace with live, test, narrowly scoped and agent credentials. */
export async function makeWorkspace(opts: { plan?: 'starter' | 'growth' | 'scale'; scoped?: string } = {}): Promise<Workspace> {
  const { sql } = await getHarness()
  const ws = await createWorkspace(sql, { name: `Test workspace ${++counter}`, plan: opts.plan ?? 'growth' })
  const live = await createToken(sql, { workspaceId: ws.id, scopes: 'all' })
  const test = await createToken(sql, { workspaceId: ws.id, scopes: 'all', test: true })
  const scoped = await createToken(sql, { workspaceId: ws.id, scopes: opts.scoped ?? 'read:analytics' })
  const agent = await createAgent(sql, { workspaceId: ws.id, name: 'Test agent', allow: 'ads.pause_campaign' })
  return { id: ws.id, live: live.token, test: test.token, scoped: scoped.token, agent: { id: agent.id, credential: agent.credential } }
}

export type { Answer }

/** One HTTP call to the test server (`path` from /api/v1 on). `body` is JSON-encoded unless it is a string. */
export async function call(
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const { url } = await getHarness()
  return callAt(url, method, path, opts)
}

/**
 * Asserts the error envelope exactly: { error: { code, message, requestId } } and nothing else, the
 * requestId being this answer's X-Request-Id (CONTRACT: Shapes).
 */
export function expectError(answer: Answer, status: number, code: string, messageIncludes?: string | RegExp) {
  const where = `${answer.status} ${answer.text}`
  if (answer.status !== status) throw new Error(`expected ${status} ${code}, got ${where}`)
  const keys = Object.keys(answer.body ?? {})
  if (keys.length !== 1 || keys[0] !== 'error') throw new Error(`expected only an error member, got ${where}`)
  const err = answer.body.error
  if (err.code !== code || typeof err.message !== 'string' || !err.message) throw new Error(`expected code ${code}, got ${where}`)
  if (Object.keys(err).sort().join() !== 'code,message,requestId') throw new Error(`error members are not code, message, requestId: ${where}`)
  if (err.requestId !== answer.headers.get('x-request-id')) throw new Error(`error.requestId is not the X-Request-Id ${answer.headers.get('x-request-id')}: ${where}`)
  if (messageIncludes !== undefined) {
    const ok = typeof messageIncludes === 'string' ? err.message.includes(messageIncludes) : messageIncludes.test(err.message)
    if (!ok) throw new Error(`expected message to mention ${messageIncludes}, got ${err.message}`)
  }
}

/**
 * Tests that compare monthly figures with the server's own clock wait out the last seconds of a UTC
 * month, so the test and the server never see two different months.
 */
export async function awayFromMonthEnd(margin = 30_000) {
  const now = new Date()
  const left = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()
  if (left < margin) await Bun.sleep(left + 1_000)
}
