import { describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { operations } from '../../server/src/http/operations.ts'
import { cursorNames, querySchemaOf } from '../../server/src/http/paging.ts'
import { createToken } from '../../server/src/domain/credentials.ts'
import { newId } from '../../server/src/core/ids.ts'
import { call, getHarness } from '../harness.ts'
import { ID_SITES, inputsTakingIds, type Own } from '../support/id-sites.ts'

/**
 * Nothing of another workspace ever appears in any read. Two full demo workspaces on one database;
 * every workspace-token GET of the route table (so new endpoints are covered as they are added) is
 * called with each workspace's token, for every value of every enum filter, following every page,
 * and no id of the other workspace may appear anywhere in the answers.
 */
const reads = operations.filter((op) => op.method === 'GET' && op.auth.kind === 'workspace')

function queryVariants(op: (typeof reads)[number]): string[] {
  const json = z.toJSONSchema(querySchemaOf(op), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { enum?: string[] }> }
  const variants = ['']
  for (const [name, prop] of Object.entries(json.properties ?? {})) {
    for (const value of prop.enum ?? []) variants.push(`${name}=${encodeURIComponent(value)}`)
  }
  if (json.properties?.limit) return variants.map((v) => (v ? `${v}&limit=100` : 'limit=100'))
  return variants
}

async function everyAnswer(token: string): Promise<string> {
  const texts: string[] = []
  for (const op of reads) {
    for (const q of queryVariants(op)) {
      let cursor: string | undefined
      let pages = 0
      do {
        const sep = q ? '&' : ''
        const cursorParam = cursor && op.kind === 'list' ? `${sep}${cursorNames(op.paging).param}=${encodeURIComponent(cursor)}` : ''
        const r = await call('GET', `/api/v1${op.path}${q || cursorParam ? '?' : ''}${q}${cursorParam}`, { token })
        expect(`${op.operationId} ${q}: ${r.status}`).toBe(`${op.operationId} ${q}: 200`)
        texts.push(r.text)
        const next = r.body.meta?.nextCursor ?? r.body.meta?.nextBefore
        cursor = next && r.body.data?.length ? next : undefined
      } while (cursor && ++pages < 20)
    }
  }
  return texts.join('\n')
}

async function idsOf(workspaceId: string): Promise<string[]> {
  const { sql } = await getHarness()
  const tables = await sql<{ table_name: string }[]>`
    SELECT c.table_name FROM information_schema.columns c
    WHERE c.table_schema = current_schema() AND c.column_name = 'id'
      AND EXISTS (SELECT 1 FROM information_schema.columns w WHERE w.table_schema = c.table_schema AND w.table_name = c.table_name AND w.column_name = 'workspace_id')`
  const ids: string[] = [workspaceId]
  for (const { table_name } of tables) {
    const rows = await sql<{ id: string }[]>`SELECT id FROM ${sql(table_name)} WHERE workspace_id = ${workspaceId}`
    ids.push(...rows.map((r) => r.id))
  }
  return ids
}

let pair: Promise<{ a: DemoWorkspace; b: DemoWorkspace }> | undefined
/** Two full demo workspaces on one database, made once for the file. */
function demoPair() {
  pair ??= (async () => {
    const { sql } = await getHarness()
    return { a: await createDemoWorkspace(sql, { name: 'Isolation A' }), b: await createDemoWorkspace(sql, { name: 'Isolation B' }) }
  })()
  return pair
}

const ID_IN_TEXT = /\b([a-z]+)_[0-9a-hjkmnp-tv-z]{26}\b/g

describe('workspace isolation', () => {
  test('no read answers anything of another workspace', async () => {
    const { a, b } = await demoPair()
    const [idsA, idsB] = await Promise.all([idsOf(a.workspace.id), idsOf(b.workspace.id)])
    expect(idsA.length).toBeGreaterThan(1000)
    const [seenByA, seenByB] = [await everyAnswer(a.tokens.live), await everyAnswer(b.tokens.live)]
    // The answers do show the workspace's own records...
    expect(idsA.filter((id) => seenByA.includes(id)).length).toBeGreaterThan(500)
    // ...and never one of the other's.
    expect(idsB.filter((id) => seenByA.includes(id))).toEqual([])
    expect(idsA.filter((id) => seenByB.includes(id))).toEqual([])
  }, 120_000)

  test('every id a workspace can see, sent by another workspace on every operation that takes one: answered as an id that does not exist', async () => {
    const { sql } = await getHarness()
    const { a, b } = await demoPair()
    // Every site of the table covers an input of the document, and every input taking an id has a site.
    expect([...new Set(ID_SITES.map((s) => `${s.operationId} ${s.input}`))].sort()).toEqual(inputsTakingIds())

    // What A can see: every id in every answer of every read, following every page (with a token
    // of its own: the first test spent part of the demo token's hour).
    const seen = await everyAnswer((await createToken(sql, { workspaceId: a.workspace.id, scopes: 'all' })).token)
    const visible = new Map<string, string[]>()
    for (const m of seen.matchAll(ID_IN_TEXT)) {
      const list = visible.get(m[1]!) ?? []
      if (!list.includes(m[0])) visible.set(m[1]!, [...list, m[0]])
    }
    const idsA = new Set((await idsOf(a.workspace.id)).filter((id) => id !== a.workspace.id))
    const first = async (table: string, where = 'true') =>
      (await sql.unsafe<{ id: string }[]>(`SELECT id FROM ${table} WHERE workspace_id = $1 AND ${where} ORDER BY id LIMIT 1`, [b.workspace.id]))[0]!.id
    const own: Own = {
      abTest: b.fixtures.openAbTestId,
      emailSend: b.fixtures.emailSendId,
      decision: b.fixtures.decisionId,
      campaign: await first('campaigns', "status = 'active'"),
      list: b.fixtures.listId,
      segment: await first('segments'),
    }
    // B's credentials, a fresh token every 400 calls (600 an hour each).
    let live = b.tokens.live
    let calls = 0
    const token = async (kind: 'live' | 'agent') => {
      if (kind === 'agent') return b.agents[0]!.credential
      if (++calls % 400 === 0) live = (await createToken(sql, { workspaceId: b.workspace.id, scopes: 'all' })).token
      return live
    }
    const ask = async (site: (typeof ID_SITES)[number], id: string) => {
      const op = operations.find((o) => o.operationId === site.operationId)!
      const req = site.request(id, own)
      const qs = req.query ? `?${new URLSearchParams(req.query)}` : ''
      const r = await call(op.method, `/api/v1${op.path}${qs}`, { token: await token(site.credential), body: req.body })
      // The id sent may be named back; any other id of A may not appear.
      const named = r.text.replaceAll(id, '<id>')
      return { status: r.status, code: r.body?.error?.code ?? null, message: (r.body?.error?.message ?? '').replaceAll(id, '<id>'), named }
    }

    const problems: string[] = []
    let tried = 0
    let cursors = 0
    for (const site of ID_SITES) {
      const ids = visible.get(site.prefix) ?? []
      if (!ids.length) problems.push(`${site.operationId} ${site.input}: workspace A shows no ${site.prefix}_ id to try`)
      const nowhere = await ask(site, newId(site.prefix === 'auth' ? 'authorization' : prefixKind(site.prefix)))
      // CONTRACT (opaque ids): a well-prefixed id that names nothing is 404 not_found.
      expect(`${site.operationId} ${site.input}: ${nowhere.status} ${nowhere.code}`).toBe(`${site.operationId} ${site.input}: 404 not_found`)
      for (const id of ids) {
        tried++
        const got = await ask(site, id)
        const leaked = [...got.named.matchAll(ID_IN_TEXT)].map((m) => m[0]).filter((x) => idsA.has(x))
        if (leaked.length) problems.push(`${site.operationId} ${site.input}=${id}: the answer shows A's ${leaked.join(', ')}`)
        if (got.status !== nowhere.status || got.code !== nowhere.code || got.message !== nowhere.message) {
          problems.push(`${site.operationId} ${site.input}=${id}: ${got.status} ${got.code} "${got.message}", but for an id that does not exist ${nowhere.status} ${nowhere.code} "${nowhere.message}"`)
        }
      }
    }
    // Cursors are ids of a kind too: A's, sent by B, are refused like any cursor this API did not issue.
    for (const op of reads.filter((o) => o.kind === 'list')) {
      const { param } = cursorNames(op.paging)
      const page = await call('GET', `/api/v1${op.path}?limit=1`, { token: a.tokens.live })
      expect(`${op.operationId} page 1: ${page.status}`).toBe(`${op.operationId} page 1: 200`)
      const cursor = page.body?.meta?.nextCursor ?? page.body?.meta?.nextBefore
      // A list that A's demo workspace fills to one page only has no cursor to lend.
      if (typeof cursor !== 'string') continue
      cursors++
      tried++
      const theirs = await call('GET', `/api/v1${op.path}?limit=1&${param}=${encodeURIComponent(cursor)}`, { token: await token('live') })
      const bogus = await call('GET', `/api/v1${op.path}?limit=1&${param}=${encodeURIComponent(`${cursor.slice(0, -4)}AAAA`)}`, { token: await token('live') })
      if (theirs.status !== bogus.status || theirs.body?.error?.code !== bogus.body?.error?.code || theirs.status !== 400) {
        problems.push(`${op.operationId}: A's cursor sent by B answered ${theirs.status} ${theirs.text.slice(0, 200)}; a bogus one ${bogus.status} ${bogus.body?.error?.code}`)
      }
    }
    console.log(`isolation: ${tried} foreign ids and cursors tried on ${ID_SITES.length} sites`)
    expect(problems).toEqual([])
    expect(cursors).toBeGreaterThan(5)
    expect(tried).toBeGreaterThan(100)
  }, 300_000)
})

/** The id kind of a prefix (core/ids.ts), for an id that names nothing. */
function prefixKind(prefix: string): Parameters<typeof newId>[0] {
  const kinds: Record<string, Parameters<typeof newId>[0]> = {
    msn: 'mission', agt: 'agent', abt: 'abTest', snd: 'emailSend', dec: 'decision', cmp: 'campaign', lst: 'list', seg: 'segment', cred: 'credential',
  }
  return kinds[prefix]!
}
