import { afterAll, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { encodeCursor } from '../../server/src/core/paging.ts'
import { parseSecretsKey, SecretsKeyring, secretsKeyId } from '../../server/src/core/secrets.ts'
import { createEndpoint, rotateSecret } from '../../server/src/domain/webhooks.ts'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { growthIn, jsonOf, type Run } from '../cli/run.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'
import { runToExit, startServerProcess } from '../support/server-process.ts'
import { settings } from '../webhooks/support.ts'

/**
 * Secrets at rest: webhook signing secrets (the previous one of a rotation too) and the workspace
 * keys that sign cursors and params digests are stored sealed (AES-256-GCM) under the secrets key,
 * so a dump of the tables alone forges neither a delivery nor a cursor. Read from outside: the
 * tables as SQL sees them, the API's answers, `growth` and the server as processes.
 */

const T = 120_000
/** The key every process of the test run shares (test/preload.ts). */
const KEY_A = process.env.GROWTH_SECRETS_KEY!
const KEY_B = randomBytes(32).toString('base64')
const keyIdOf = (key: string) => secretsKeyId(parseSecretsKey(key)!)
const SEALED = (key: string) => new RegExp(`^enc:v1:${keyIdOf(key)}:[A-Za-z0-9_-]+$`)

/** The stored secrets of a database, as a dump holds them. */
const DUMP = `SELECT secret_key AS value FROM workspaces UNION ALL SELECT secret FROM webhook_secrets`

/** A database of its own (a PostgreSQL database when DATABASE_URL is set, else a fresh embedded one), for `growth` and servers. */
type Scratch = { env: Record<string, string>; dataDir: string; query<R>(text: string, params?: unknown[]): Promise<R[]>; growth(args: string[], env?: Record<string, string>): Promise<Run> }
const drops: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const drop of drops) await drop().catch(() => {})
})

async function scratch(): Promise<Scratch> {
  const dataDir = mkdtempSync(join(tmpdir(), 'growth-secrets-'))
  const base = process.env.DATABASE_URL
  let env: Record<string, string> = { DATABASE_URL: '', DATA_DIR: dataDir }
  let query: Scratch['query'] = async (text, params = []) => {
    // The embedded database is opened here only between commands (a server would otherwise be its client).
    const db = await openDatabase({ dataDir })
    try {
      return (await db.sql.unsafe(text, params as never[])) as never
    } finally {
      await db.close()
    }
  }
  if (base) {
    const name = `growth_secrets_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
    const admin = postgres(base, { max: 1, onnotice: () => {} })
    await admin.unsafe(`CREATE DATABASE ${name}`)
    const url = new URL(base)
    url.pathname = `/${name}`
    const sql = postgres(url.toString(), { max: 2, onnotice: () => {} })
    env = { DATABASE_URL: url.toString(), DATA_DIR: dataDir }
    query = async (text, params = []) => (await sql.unsafe(text, params as never[])) as never
    drops.push(async () => {
      await sql.end()
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    })
  }
  const run = growthIn(dataDir)
  return { env, dataDir, query, growth: (args, more = {}) => run(args, { ...env, ...more }) }
}

/** In a scratch database: a workspace with an endpoint whose secret was rotated (two live secrets); their values as `growth` showed them. */
async function populate(s: Scratch, key = KEY_A) {
  const env = { GROWTH_SECRETS_KEY: key, WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }
  const ws = jsonOf(await s.growth(['admin', 'workspace', 'create', '--name', 'Sealed', '--json'], env), 'workspace create')
  const token = jsonOf(await s.growth(['admin', 'token', 'create', '--workspace', ws.id, '--json'], env), 'token create').token as string
  const e = jsonOf(await s.growth(['admin', 'webhook', 'create', '--workspace', ws.id, '--url', 'http://127.0.0.1:9/hooks', '--events', 'contact.created', '--json'], env), 'webhook create')
  const rotated = jsonOf(await s.growth(['admin', 'webhook', 'rotate', e.id, '--overlap', '24h', '--json'], env), 'webhook rotate')
  return { workspaceId: ws.id as string, token, endpointId: e.id as string, secrets: [e.secret as string, rotated.secret as string] }
}

/** The webhook secrets of an endpoint, opened with `key`. */
async function openedSecrets(s: Scratch, endpointId: string, key: string): Promise<string[]> {
  const ring = new SecretsKeyring(parseSecretsKey(key)!)
  const rows = await s.query<{ secret: string }>('SELECT secret FROM webhook_secrets WHERE endpoint_id = $1 ORDER BY created_at', [endpointId])
  return rows.map((r) => ring.open(r.secret))
}

/** The first page of a list with a cursor, then the page after it: both answered. */
async function pageTwice(base: string, token: string) {
  const headers = { Authorization: `Bearer ${token}` }
  const first = await fetch(`${base}/agents/tools?limit=1`, { headers })
  expect(first.status).toBe(200)
  const cursor = Object.values(((await first.json()) as { meta: Record<string, string> }).meta)[0]!
  const second = await fetch(`${base}/agents/tools?limit=1&cursor=${encodeURIComponent(cursor)}`, { headers })
  expect(second.status).toBe(200)
  return cursor
}

describe('a dump of the tables', () => {
  test('holds no whsec_ and no workspace key in plaintext; a cursor signed with what it holds is refused', async () => {
    const { sql } = await getHarness()
    const ws = await makeWorkspace()
    const e = await createEndpoint(sql, { workspaceId: ws.id, url: 'http://127.0.0.1:9/hooks', events: 'contact.created' }, { addresses: settings().addresses })
    const rotated = await rotateSecret(sql, e.id, 24 * 3600_000)

    const secrets = await sql<{ secret: string }[]>`SELECT secret FROM webhook_secrets WHERE workspace_id = ${ws.id}`
    expect(secrets).toHaveLength(2)
    const [{ secret_key }] = await sql<{ secret_key: string }[]>`SELECT secret_key FROM workspaces WHERE workspace_id = ${ws.id}`
    for (const value of [...secrets.map((r) => r.secret), secret_key!]) {
      expect(value).toMatch(SEALED(KEY_A))
      expect(value).not.toContain('whsec_')
    }
    // Nor any other workspace's or endpoint's, whatever the suite made before (sealed at the server's start).
    const plain = await sql.unsafe(`SELECT value FROM (${DUMP}) s WHERE value NOT LIKE 'enc:v1:%'`)
    expect([...plain]).toEqual([])
    // What they seal: the secrets growth showed, and the key the API signs this workspace's cursors with.
    const ring = new SecretsKeyring(parseSecretsKey(KEY_A)!)
    expect(secrets.map((r) => ring.open(r.secret)).sort()).toEqual([e.secret, rotated.secret].sort())
    const key = ring.open(secret_key!)
    expect(secrets.map((r) => r.secret).join()).not.toContain(e.secret)
    expect(secret_key).not.toContain(key)

    const { url } = await getHarness()
    const cursor = await pageTwice(`${url}/api/v1`, ws.live)
    const position = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString()).p
    const forged = (secretKey: string) => encodeCursor({ workspaceId: ws.id, secretKey, list: 'listAgentTools', filter: {} }, position)
    // The cursor the API issued is the one its workspace key signs; signed with what the table holds, it is refused.
    expect(forged(key)).toBe(cursor)
    expectError(await call('GET', `/api/v1/agents/tools?limit=1&cursor=${encodeURIComponent(forged(secret_key!))}`, { token: ws.live }), 400, 'invalid_parameter', 'cursor')
  }, T)
})

describe('a database made before sealing', () => {
  test('has its plaintext secrets sealed at start, by several processes at once, and what receivers and clients hold still works', async () => {
    const s = await scratch()
    const made = await populate(s)
    // As a database made before this change holds them: in plaintext.
    const oldKey = randomBytes(32).toString('base64url')
    await s.query('UPDATE workspaces SET secret_key = $1', [oldKey])
    await s.query('UPDATE webhook_secrets SET secret = $1 WHERE created_at = (SELECT min(created_at) FROM webhook_secrets)', [made.secrets[0]])
    await s.query('UPDATE webhook_secrets SET secret = $1 WHERE created_at = (SELECT max(created_at) FROM webhook_secrets)', [made.secrets[1]])
    const issuedBefore = encodeCursor({ workspaceId: made.workspaceId, secretKey: oldKey, list: 'listAgentTools', filter: {} }, { t: new Date(0).toISOString(), id: 'x' })

    // Three processes start on it at once. (On the embedded database this process owns it meanwhile, as
    // a running server would: the three are its clients, and none is cut off by another closing it.)
    const owner = s.env.DATABASE_URL ? undefined : await openDatabase({ dataDir: s.dataDir })
    try {
      const runs = await Promise.all([1, 2, 3].map(() => s.growth(['admin', 'webhook', 'list', '--workspace', made.workspaceId, '--json'])))
      for (const r of runs) jsonOf(r, 'webhook list')
    } finally {
      await owner?.close()
    }
    for (const { value } of await s.query<{ value: string }>(DUMP)) expect(value).toMatch(SEALED(KEY_A))
    // Sealed once each: they open to the very values receivers and cursors already hold.
    expect(await openedSecrets(s, made.endpointId, KEY_A)).toEqual(made.secrets)
    const [{ secret_key }] = await s.query<{ secret_key: string }>('SELECT secret_key FROM workspaces')
    expect(new SecretsKeyring(parseSecretsKey(KEY_A)!).open(secret_key!)).toBe(oldKey)

    const server = await startServerProcess({ ...s.env, GROWTH_SECRETS_KEY: KEY_A })
    try {
      const r = await fetch(`${server.base}/agents/tools?limit=1&cursor=${encodeURIComponent(issuedBefore)}`, { headers: { Authorization: `Bearer ${made.token}` } })
      expect(r.status).toBe(200)
    } finally {
      server.proc.kill('SIGTERM')
      await server.proc.exited
    }
  }, T)
})

describe('a process whose key cannot open the database secrets', () => {
  test('refuses to start, and growth refuses the command, in one line naming the fix; nothing is sealed anew', async () => {
    const s = await scratch()
    const made = await populate(s, KEY_A)
    const before = await s.query<{ value: string }>(DUMP)

    const server = await runToExit({ ...s.env, GROWTH_SECRETS_KEY: KEY_B })
    expect(server.code).toBe(1)
    expect(server.stderr.trim().split('\n')).toHaveLength(1)
    expect(server.stderr).toContain(`sealed with secrets key ${keyIdOf(KEY_A)}`)
    expect(server.stderr).toContain('Set GROWTH_SECRETS_KEY to the key the other servers use')

    const cli = await s.growth(['admin', 'webhook', 'rotate', made.endpointId], { GROWTH_SECRETS_KEY: KEY_B })
    expect(cli.code).toBe(1)
    expect(cli.stdout).toBe('')
    expect(cli.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: .*Set GROWTH_SECRETS_KEY to the key the other servers use/)])
    expect(await s.query<{ value: string }>(DUMP)).toEqual(before)
  }, T)

  test('a key file path with no file there (a typo, another HOME): the line says the key was made just now', async () => {
    const s = await scratch()
    await populate(s, KEY_A)
    const file = join(mkdtempSync(join(tmpdir(), 'growth-secrets-config-')), 'typo', 'secrets.key')
    const server = await runToExit({ ...s.env, GROWTH_SECRETS_KEY: '', GROWTH_SECRETS_KEY_FILE: file })
    expect(server.code).toBe(1)
    expect(server.stderr.trim().split('\n')).toHaveLength(1)
    expect(server.stderr).toContain(`sealed with secrets key ${keyIdOf(KEY_A)}`)
    expect(server.stderr).toContain(`(from the key file ${file}, made just now as there was none)`)
    // Started again, the file is there: named as it is, not as made.
    const again = await s.growth(['admin', 'migrate'], { GROWTH_SECRETS_KEY: '', GROWTH_SECRETS_KEY_FILE: file })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`(from the key file ${file}).`)
  }, T)

  test('a GROWTH_SECRETS_KEY that is not a 32-byte key stops the server in one line naming the variable', async () => {
    const r = await runToExit({ GROWTH_SECRETS_KEY: 'not-a-key', DATABASE_URL: '', DATA_DIR: mkdtempSync(join(tmpdir(), 'growth-secrets-')) })
    expect(r.code).toBe(1)
    expect(r.stderr.trim()).toBe('error: GROWTH_SECRETS_KEY must be a 32-byte key: 64 hex characters, or its base64 (make one with: openssl rand -base64 32).')
  }, T)
})

describe('rotating the secrets key', () => {
  test('rotate-key re-seals every secret under the new key; then the old key is not needed; the secrets receivers hold and the cursors clients hold still work', async () => {
    const s = await scratch()
    const made = await populate(s, KEY_A)
    const server = await startServerProcess({ ...s.env, GROWTH_SECRETS_KEY: KEY_A })
    let cursor: string
    try {
      cursor = await pageTwice(server.base, made.token)
    } finally {
      server.proc.kill('SIGTERM')
      await server.proc.exited
    }

    const rotated = await s.growth(['admin', 'secrets', 'rotate-key', '--json'], { GROWTH_SECRETS_KEY: KEY_B, GROWTH_SECRETS_KEY_PREVIOUS: KEY_A })
    expect(jsonOf(rotated, 'secrets rotate-key')).toEqual({ resealed: 3, keyId: keyIdOf(KEY_B) })
    for (const { value } of await s.query<{ value: string }>(DUMP)) expect(value).toMatch(SEALED(KEY_B))
    expect(await openedSecrets(s, made.endpointId, KEY_B)).toEqual(made.secrets)
    // Nothing left to re-seal.
    expect(jsonOf(await s.growth(['admin', 'secrets', 'rotate-key', '--json'], { GROWTH_SECRETS_KEY: KEY_B }), 'again').resealed).toBe(0)

    // The new key alone serves, and the cursor issued before the rotation still pages; the old key alone is refused.
    const after = await startServerProcess({ ...s.env, GROWTH_SECRETS_KEY: KEY_B })
    try {
      const r = await fetch(`${after.base}/agents/tools?limit=1&cursor=${encodeURIComponent(cursor)}`, { headers: { Authorization: `Bearer ${made.token}` } })
      expect(r.status).toBe(200)
    } finally {
      after.proc.kill('SIGTERM')
      await after.proc.exited
    }
    const old = await runToExit({ ...s.env, GROWTH_SECRETS_KEY: KEY_A })
    expect(old.code).toBe(1)
    expect(old.stderr).toContain(`sealed with secrets key ${keyIdOf(KEY_B)}`)
  }, T)
})

describe('the key file', () => {
  test('without GROWTH_SECRETS_KEY, a key file is made 0600 outside DATA_DIR on first start and used by every later process', async () => {
    const config = mkdtempSync(join(tmpdir(), 'growth-secrets-config-'))
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-secrets-data-'))
    const env = { GROWTH_SECRETS_KEY: '', XDG_CONFIG_HOME: config, DATABASE_URL: '', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.0/8' }
    const growth = growthIn(dataDir)
    const ws = jsonOf(await growth(['admin', 'workspace', 'create', '--name', 'Keyed', '--json'], env), 'workspace create')
    const file = join(config, 'growth', 'secrets.key')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(config, 'growth')).mode & 0o777).toBe(0o700)
    expect(file.startsWith(dataDir)).toBe(false)
    // A later process opens what the first sealed.
    jsonOf(await growth(['admin', 'webhook', 'create', '--workspace', ws.id, '--url', 'http://127.0.0.1:9/hooks', '--events', 'contact.created', '--json'], env), 'webhook create')

    // A key file inside DATA_DIR is refused, naming the setting.
    const inside = await growth(['admin', 'migrate'], { ...env, GROWTH_SECRETS_KEY_FILE: join(dataDir, 'secrets.key') })
    expect(inside.code).toBe(1)
    expect(inside.stderr).toMatch(/^error: GROWTH_SECRETS_KEY_FILE .* is inside DATA_DIR/)
  }, T)

  test('processes starting at once all end with the first one\'s key', async () => {
    const config = mkdtempSync(join(tmpdir(), 'growth-secrets-config-'))
    const script = `import { loadSecretsKeyring } from './server/src/secrets-key.ts'; console.log(loadSecretsKeyring(process.env, '/nonexistent').keyId)`
    const runs = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => {
        const proc = Bun.spawn([process.execPath, '-e', script], { cwd: join(import.meta.dir, '../..'), env: { ...process.env, GROWTH_SECRETS_KEY: '', XDG_CONFIG_HOME: config }, stdout: 'pipe', stderr: 'pipe' })
        const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
        return out.trim()
      }),
    )
    const fileKey = (await Bun.file(join(config, 'growth', 'secrets.key')).text()).trim()
    expect(runs).toEqual(runs.map(() => keyIdOf(fileKey)))
  }, T)
})
