import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../server/src/config.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { MemoryLimiter } from '../../server/src/http/rate-limit.ts'
import { type RunningServer, startServer } from '../../server/src/server.ts'
import { purgeRateLimitWindows } from '../../server/src/store/credentials.ts'
import { type Database, openDatabase, openPool, type Sql } from '../../server/src/store/driver/db.ts'
import { type ScratchDatabase, scratchDatabase } from '../support/scratch-database.ts'
import { purgeExpiredKeys } from '../../server/src/store/idempotency.ts'
import { insertRequestLog, purgeRequestLog } from '../../server/src/store/request-log.ts'
import { decideAction } from '../../server/src/domain/actions.ts'
import { decideApproval } from '../../server/src/domain/approvals.ts'
import { createToken, listTokens, revokeToken, rotateToken } from '../../server/src/domain/credentials.ts'
import { createEndpoint, listAttempts, rotateSecret, sendTestEvent, setEndpointEnabled, updateEndpoint } from '../../server/src/domain/webhooks.ts'
import { claimDeliveries, disableLongFailing, reapLeases, recordFailure, recordSuccesses, releaseLeases } from '../../server/src/store/webhook-deliveries.ts'
import { driveEveryOperation, statementRecorder } from '../support/drive-operations.ts'
import { growWorkspace } from '../support/scale-seed.ts'
import { oneLine } from '../support/statement-plans.ts'
import { catalogProblems, verbosePlan, workspaceScopeProblems, workspaceTables } from '../support/workspace-scope.ts'

/**
 * Ready to shard by workspace (docs/scaling.md): every statement the server sends, for every
 * operation of the OpenAPI document (as test/server/query-cost.test.ts drives them, through the
 * same test/support/drive-operations.ts), the server's housekeeping, the webhook workers'
 * statements and the CLI's operator commands on the database, keeps to one workspace. Each is
 * planned with EXPLAIN (VERBOSE) as a custom plan, and it fails when a table holding workspace_id
 * is read or written without its workspace_id tied to the request's workspace (each side of a
 * join, subqueries, CTEs, UPDATE, DELETE and INSERT targets), or when one statement touches two
 * workspaces. It lists the offenders by text. The catalog is read too: every table holds
 * workspace_id, every key and index starts with it, every foreign key carries it.
 *
 * It runs on both legs: the embedded database, or the PostgreSQL server of DATABASE_URL (in a
 * database of its own, dropped afterwards). The data is the demo workspace grown to ROWS rows a
 * table: enough for every list's second page; the plans' shape, not their cost, is read here.
 */
const serverUrl = process.env.DATABASE_URL
const ROWS = 300

/**
 * Statements that cross workspaces by design, each with the reason and what it would cost on Citus
 * (docs/scaling.md, "What stays cross-shard"). An entry that no statement matches fails the test.
 */
const CROSSES_WORKSPACES: { statement: RegExp; why: string }[] = [
  {
    statement: /^WITH req AS \( SELECT \* FROM unnest\(.*JOIN credentials c ON c\.workspace_id = r\.workspace_id AND c\.token_hash = r\.token_hash/,
    why: 'authentication: one statement checks and counts the credentials of a batch of requests, which may come from several workspaces (each pair is looked up by workspace and token hash); on Citus a multi-shard statement, or one per workspace of the batch',
  },
  {
    statement: /^(WITH used AS \( UPDATE credentials cr SET last_used_at = u\.at FROM unnest\(.*\) AS u\(w, id, at\) WHERE cr\.workspace_id = u\.w AND cr\.id = u\.id .*\) )?INSERT INTO call_counts AS c \(workspace_id, day, credential_id, operation, status, count\) SELECT \* FROM unnest\(/,
    why: "the call counter flushes the counts of every workspace that made calls since the last flush in one statement, and moves each credential's last use forward in it (each credential looked up by workspace and id); on Citus a multi-shard INSERT ... SELECT from arrays and UPDATE ... FROM (the coordinator splits the rows by workspace), or one statement per workspace",
  },
  {
    statement: /^INSERT INTO request_log \(workspace_id, id, method, path, operation, status, code, message, duration_ms, credential_id, idempotency_key, replayed, created_at\) SELECT .* FROM unnest\(/,
    why: 'the request log writes a flush given back after a failure (calls of every workspace, ON CONFLICT skipping what the failed one wrote) in one statement, as the call counter does; on Citus a multi-shard INSERT ... SELECT from arrays, or one statement per workspace. (A flush is otherwise a COPY, which is not planned and so not checked here: Citus routes its rows to their shards.)',
  },
  {
    statement: /^DELETE FROM request_log r USING \( WITH RECURSIVE ws\(id\) AS \( SELECT min\(workspace_id\) FROM request_log UNION ALL/,
    why: 'housekeeping: deletes the request log of every workspace past its 7 days, a bounded batch at a time, finding the workspaces that have calls by skipping through its key; on Citus it runs on every shard in parallel',
  },
  {
    statement: /^DELETE FROM idempotency_keys WHERE expires_at <= now\(\)$/,
    why: 'housekeeping: purges the expired idempotency records of every workspace; on Citus it runs on every shard in parallel',
  },
  {
    statement: /^DELETE FROM rate_limit_counters WHERE window_start < now\(\) - interval '2 hours'$/,
    why: 'housekeeping: drops the ended rate-limit windows of every workspace; on Citus it runs on every shard in parallel',
  },
  {
    statement: /^WITH RECURSIVE waiting AS \(.*FROM webhook_deliveries d WHERE d\.status = 'pending'/,
    why: "the webhook claim: a worker takes due deliveries of every workspace's endpoints, taking turns between them; on Citus it cannot run as one statement (recursive CTE, FOR UPDATE across shards): a claim per shard, or per worker group",
  },
  {
    statement: /^WITH r AS \( SELECT \* FROM unnest\(.*UPDATE webhook_deliveries d SET status = 'succeeded'/,
    why: "the webhook workers record a batch of successes in one statement, deliveries of any workspace's endpoints; on Citus a multi-shard statement, or one per workspace",
  },
  {
    statement: /^UPDATE webhook_deliveries SET status = 'pending', lease_until = NULL, lease_owner = NULL, next_attempt_at = now\(\) WHERE status = 'delivering'/,
    why: 'the webhook workers: leases that ran out (reapLeases) and the leases a stopping worker gives back (releaseLeases), in every workspace; on Citus, every shard',
  },
  {
    statement: /^UPDATE webhook_endpoints (e )?SET (circuit = 'open'|draining = false|status = 'disabled')/,
    why: 'the webhook workers keep the endpoints of every workspace in order (a half-open circuit whose probe is gone, a drained backlog, an endpoint failing too long); on Citus, every shard',
  },
  {
    statement: /^SELECT workspace_id, id FROM webhook_endpoints WHERE status = 'enabled' AND failing_since < now\(\)/,
    why: 'the webhook workers find the endpoints of every workspace failing too long, along the partial index on failing_since (then disable each by its workspace and id, with its audit entry, in one transaction); on Citus, every shard',
  },
  {
    statement: /^SELECT workspace_id, revoked_at FROM credentials WHERE id = \$1$/,
    why: 'growth admin token revoke and rotate name the credential by its id alone: one read of every workspace finds it (then the UPDATE, or the lock and the new token, keep to its workspace); on Citus a multi-shard read of one row',
  },
  {
    statement: /^SELECT workspace_id, .* FROM (approvals|actions|webhook_endpoints) WHERE id = \$1( FOR UPDATE)?$/,
    why: 'the operator commands (growth admin approval decide, action decide, webhook rotate/test/toggle/attempts) name the record by its id alone and find its workspace from it, locked; on Citus a lock across shards is refused: read the workspace first without a lock (multi-shard), then lock the row with its workspace (a router query)',
  },
]

/**
 * Indexes that do not start with workspace_id, each with the reason: they serve the statements
 * above that cross workspaces (an index on the time a purge or the workers' upkeep selects by). On
 * Citus each shard keeps its own copy, which serves that statement's part on the shard.
 */
const CROSS_WORKSPACE_INDEXES: { index: string; why: string }[] = [
  { index: 'people_by_email', why: "the console's 'mail me a sign-in link', which finds a person by email before any workspace is known (migration 0027)" },
  { index: 'idempotency_keys_expiry', why: 'the purge of expired idempotency records of every workspace (migration 0013)' },
  { index: 'rate_limit_counters_window', why: 'the purge of ended rate-limit windows of every workspace (migration 0013)' },
  { index: 'webhook_deliveries_leases', why: "the webhook workers' reaping of expired leases in every workspace" },
  { index: 'webhook_endpoints_failing', why: "the webhook workers' disabling of endpoints failing too long, in every workspace (migration 0012)" },
]

const recorder = statementRecorder()
let db: Database
let planSql: Sql
let server: RunningServer
let demo: DemoWorkspace
let neighbour: DemoWorkspace
let tables: Map<string, number>
let endpointId: string
/** The address guard the endpoints were made with (hooks.example.com resolves to a public address here). */
let guard: Parameters<typeof createEndpoint>[2]
let scratch: ScratchDatabase | undefined

beforeAll(async () => {
  scratch = await scratchDatabase(serverUrl, 'growth_scope')
  const { databaseUrl, dataDir } = scratch
  db = await openDatabase({ databaseUrl, dataDir: dataDir ?? '', poolMax: 4, debug: recorder.record, timeouts: { statementMs: 0 } })
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl ?? '', DATA_DIR: dataDir ?? '', PORT: '0', HOST: '127.0.0.1', WEBHOOK_WORKERS: '0', CALL_COUNT_FLUSH_MS: '100' })
  server = await startServer(config, {
    db,
    log: createLogger('silent'),
    debug: recorder.record,
    authFailures: new MemoryLimiter(100_000, 60_000),
  })
  demo = await createDemoWorkspace(db.sql, { name: 'Scoped' })
  // A second workspace, so that a statement not held to one would have another's rows to reach.
  neighbour = await createDemoWorkspace(db.sql, { name: 'Neighbour' })
  await db.sql`INSERT INTO allowances (workspace_id, name, amount) VALUES (${demo.workspace.id}, 'contacts', ${ROWS * 10})`
  await growWorkspace(db.sql, demo.workspace.id, ROWS)
  // An endpoint in each workspace, so that new contacts have deliveries for the workers' statements.
  guard = { addresses: config.webhooks.addresses, resolve: async () => ['93.184.216.34'] }
  for (const w of [neighbour, demo]) {
    endpointId = (await createEndpoint(db.sql, { workspaceId: w.workspace.id, url: 'https://hooks.example.com/growth', events: 'contact.created' }, guard)).id
  }
  planSql = databaseUrl ? openPool(databaseUrl, { max: 1, name: 'growth-scope-explain', timeouts: { statementMs: 0 } }) : db.sql
  tables = await workspaceTables(planSql)
}, 600_000)

afterAll(async () => {
  await server?.stop()
  if (planSql && planSql !== db?.sql) await planSql.end()
  await db?.close()
  await scratch?.drop()
})

async function checkOf(query: string, params: unknown[] = [], types: number[] = []) {
  return workspaceScopeProblems(await verbosePlan(planSql, query, params, types), tables)
}
const problemsOf = async (query: string, params: unknown[] = []) => (await checkOf(query, params)).problems

class Rollback extends Error {}

describe('every statement keeps to one workspace (ready to shard by workspace_id)', () => {
  test('every table holds workspace_id, and every key, index and foreign key starts with it or carries it', async () => {
    const listed = (p: string) => CROSS_WORKSPACE_INDEXES.find((i) => p.startsWith(`index ${i.index} on `))
    const problems = await catalogProblems(planSql)
    expect(problems.filter((p) => !listed(p))).toEqual([])
    // Every listed index still exists and still needs listing.
    expect(CROSS_WORKSPACE_INDEXES.filter((i) => !problems.some((p) => listed(p) === i)).map((i) => i.index)).toEqual([])
    // The check catches each kind, on tables made and dropped in a rolled-back transaction.
    let caught: string[] = []
    await planSql
      .begin(async (tx) => {
        await tx.unsafe('CREATE TABLE scope_no_ws (id text PRIMARY KEY)')
        await tx.unsafe('CREATE TABLE scope_bad (workspace_id text NOT NULL, id text NOT NULL, ref text, PRIMARY KEY (id, workspace_id))')
        await tx.unsafe('CREATE INDEX scope_bad_by_ref ON scope_bad (ref)')
        await tx.unsafe('ALTER TABLE scope_bad ADD CONSTRAINT scope_bad_ref FOREIGN KEY (ref) REFERENCES scope_no_ws (id)')
        await tx.unsafe('CREATE TABLE scope_child (workspace_id text NOT NULL, bad_id text NOT NULL, PRIMARY KEY (workspace_id, bad_id), FOREIGN KEY (bad_id, workspace_id) REFERENCES scope_bad (id, workspace_id))')
        caught = await catalogProblems(tx as unknown as Sql)
        throw new Rollback()
      })
      .catch((err) => {
        if (!(err instanceof Rollback)) throw err
      })
    expect(caught.filter((p) => p.includes(' scope_'))).toEqual([
      'foreign key scope_bad_ref of scope_bad does not carry workspace_id to scope_no_ws',
      'index scope_bad_by_ref on scope_bad does not start with workspace_id',
      'index scope_bad_pkey on scope_bad does not start with workspace_id',
      'table scope_no_ws has no workspace_id',
    ])
  })


  test('the check catches a statement that leaves a workspace, and passes one that keeps to it', async () => {
    const ws = demo.workspace.id
    expect(tables.get('contacts')).toBe(0)
    // No workspace filter.
    expect(await problemsOf('SELECT id, email FROM contacts WHERE id = $1', ['c_1'])).toEqual([
      'contacts contacts: workspace_id is not filtered on, nor joined on to a table that is',
    ])
    // A join on the id alone: the list_members side may be any workspace's.
    expect(await problemsOf('SELECT c.id FROM contacts c JOIN list_members m ON m.contact_id = c.id WHERE c.workspace_id = $1', [ws])).toEqual([
      'list_members m: workspace_id is not filtered on, nor joined on to a table that is',
    ])
    // A subquery, an UPDATE target and an INSERT ... SELECT that lose the workspace.
    expect(await problemsOf('SELECT id FROM lists WHERE workspace_id = $1 AND id IN (SELECT list_id FROM list_members WHERE contact_id = $2)', [ws, 'c_1'])).toEqual([
      'list_members list_members: workspace_id is not filtered on, nor joined on to a table that is',
    ])
    expect(await problemsOf("UPDATE contacts SET name = 'x' WHERE id = $1", ['c_1'])).toEqual([
      'contacts contacts: workspace_id is not filtered on, nor joined on to a table that is',
    ])
    expect(await problemsOf('INSERT INTO list_members (workspace_id, list_id, contact_id) SELECT workspace_id, $1, id FROM contacts WHERE email_key = $2', ['l_1', 'a@b.c'])).toEqual([
      'the rows inserted into list_members (workspace_id from contacts.workspace_id): workspace_id is not filtered on, nor joined on to a table that is',
      'contacts contacts: workspace_id is not filtered on, nor joined on to a table that is',
    ])
    // Two workspaces in one statement.
    expect(await problemsOf('SELECT id FROM contacts WHERE workspace_id = $1 UNION ALL SELECT id FROM contacts WHERE workspace_id = $2', [ws, 'ws_other'])).toEqual([
      `the statement spans workspaces: ${ws}, ws_other`,
    ])
    // Kept to one workspace: a join on workspace_id, a CTE, an INSERT, an UPDATE.
    expect(await problemsOf('SELECT c.id FROM contacts c JOIN list_members m ON m.workspace_id = c.workspace_id AND m.contact_id = c.id WHERE c.workspace_id = $1', [ws])).toEqual([])
    expect(await problemsOf('WITH l AS (SELECT workspace_id, id FROM lists WHERE workspace_id = $1 FOR UPDATE) SELECT m.contact_id FROM l JOIN list_members m ON m.workspace_id = l.workspace_id AND m.list_id = l.id', [ws])).toEqual([])
    expect(await problemsOf('INSERT INTO list_members (workspace_id, list_id, contact_id) VALUES ($1, $2, $3)', [ws, 'l_1', 'c_1'])).toEqual([])
    expect(await problemsOf("UPDATE contacts SET name = 'x' WHERE workspace_id = $1 AND id = $2", [ws, 'c_1'])).toEqual([])
  }, 60_000)

  test('every statement of every operation, the housekeeping, the webhook workers and the operator commands keeps to one workspace', async () => {
    const { documented } = await driveEveryOperation(server.url, demo, recorder, new Set(['authorizeAgentAction']))
    // The neighbour's contact is a delivery of its endpoint: the workers below claim from two workspaces.
    await recorder.during('neighbour', async () => {
      const res = await fetch(`${server.url}/api/v1/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${neighbour.tokens.live}`, 'content-type': 'application/json' },
        body: JSON.stringify({ contacts: [{ email: 'next.door@example.com' }] }),
      })
      expect(res.status).toBe(201)
    })
    // The call counter flushes the counts of every workspace that made calls since its last flush.
    await recorder.during('call counting', async () => {
      await Bun.sleep(400)
      server.counter.count(demo.workspace.id, 'key_scope', 'listSignals', 200)
      server.counter.count(neighbour.workspace.id, 'key_scope', 'listSignals', 200)
      await server.counter.flush()
    })
    // The request log's flush given back after a failure: calls of both workspaces in one INSERT.
    await recorder.during('request log', async () => {
      const call = (workspaceId: string, id: string) => ({
        workspaceId, id, method: 'GET', path: '/api/v1/signals', operation: 'listSignals', status: 200, code: null, message: null,
        durationMs: 1, credentialId: 'key_scope', idempotencyKey: null, replayed: false, createdAt: new Date(),
      })
      await insertRequestLog(db.sql, [call(demo.workspace.id, 'req_scope_1'), call(neighbour.workspace.id, 'req_scope_2')], { mayRepeat: true })
    })
    await recorder.during('housekeeping', async () => {
      await purgeExpiredKeys(db.sql)
      await purgeRateLimitWindows(db.sql)
      await purgeRequestLog(db.sql)
    })
    await recorder.during('webhook workers', async () => {
      const claimed = await claimDeliveries(db.sql, { owner: 'scope-test', leaseMs: 30_000, perEndpoint: 4, endpoints: 64, paceMs: 100, limit: 10 })
      expect(new Set(claimed.map((c) => c.workspace_id)).size).toBe(2)
      const records = claimed.map((c) => ({
        workspaceId: c.workspace_id, deliveryId: c.id, endpointId: c.endpoint_id, eventId: c.event_id, eventType: c.event_type,
        attempt: c.attempt, url: c.url, address: null, statusCode: 200, error: null, durationMs: 5,
      }))
      await recordSuccesses(db.sql, records.slice(1))
      if (records[0]) {
        await recordFailure(db.sql, { ...records[0], statusCode: 500 }, { nextAttemptAt: new Date(Date.now() + 60_000), gone: false }, { threshold: 5, cooldownMs: 1000, cooldownMaxMs: 60_000, disableAfterMs: 86_400_000 })
      }
      await reapLeases(db.sql)
      await disableLongFailing(db.sql, 86_400_000)
      await releaseLeases(db.sql, 'scope-test')
    })
    // The CLI's operator commands, on the same database: they name a record by its id alone.
    const ws = demo.workspace.id
    const [approval] = await db.sql<{ id: string }[]>`SELECT id FROM approvals WHERE workspace_id = ${ws} AND status = 'pending' LIMIT 1`
    const [action] = await db.sql<{ id: string }[]>`SELECT id FROM actions WHERE workspace_id = ${ws} AND status = 'proposed' LIMIT 1`
    expect([approval?.id.slice(0, 4), action?.id.slice(0, 4)]).toEqual(['apr_', 'act_'])
    await recorder.during('operator commands', async () => {
      const token = await createToken(db.sql, { workspaceId: ws, scopes: 'read:contacts' })
      const rotated = await rotateToken(db.sql, token.id, 60_000)
      await revokeToken(db.sql, token.id)
      await revokeToken(db.sql, rotated.id)
      await listTokens(db.sql, ws)
      await decideApproval(db.sql, { id: approval!.id, approve: false, decider: { kind: 'operator', name: 'ops' } })
      await decideAction(db.sql, { actionId: action!.id, decision: 'reject', decider: { kind: 'operator', name: 'ops' } })
      await rotateSecret(db.sql, endpointId, 60_000)
      await updateEndpoint(db.sql, endpointId, { url: 'https://hooks.example.com/growth/v2', events: 'contact.created,contact.updated' }, guard)
      await sendTestEvent(db.sql, endpointId)
      await listAttempts(db.sql, endpointId, 10)
      await setEndpointEnabled(db.sql, endpointId, false)
      await setEndpointEnabled(db.sql, endpointId, true)
    })
    const operations = new Set(recorder.recorded.map((s) => s.operation))
    expect(['webhook workers', 'housekeeping', 'call counting', 'operator commands'].filter((o) => !operations.has(o))).toEqual([])

    const seen = new Set<string>()
    const offenders: string[] = []
    let checked = 0
    const allowed = new Set<RegExp>()
    for (const s of recorder.recorded) {
      const key = `${s.query}\u0000${JSON.stringify(s.params)}`
      if (seen.has(key)) continue
      seen.add(key)
      const check = await checkOf(s.query, s.params, s.types)
      checked += check.checked
      const problems = check.problems
      if (!problems.length) continue
      const text = oneLine(s.query)
      const entry = CROSSES_WORKSPACES.find((c) => c.statement.test(text))
      if (entry) {
        allowed.add(entry.statement)
        continue
      }
      offenders.push(`${s.operation}: ${text}\n    ${problems.join('\n    ')}`)
    }
    console.log(`workspace scope: ${documented.length} operations, ${seen.size} statements planned, ${checked} reads and writes of workspace tables checked, ${allowed.size} cross-workspace statements allowed`)
    expect(checked).toBeGreaterThan(seen.size)
    expect([...new Set(offenders)]).toEqual([])
    // Every allowance is still needed: a statement that now keeps to one workspace leaves the list.
    expect(CROSSES_WORKSPACES.filter((c) => !allowed.has(c.statement)).map((c) => c.why)).toEqual([])
  }, 600_000)
})
