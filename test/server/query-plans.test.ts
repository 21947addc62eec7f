import { describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { loadConfig } from '../../server/src/config.ts'
import { createDemoWorkspace } from '../../server/src/demo/index.ts'
import { createLogger } from '../../server/src/core/log.ts'
import { operations } from '../../server/src/http/operations.ts'
import { querySchemaOf } from '../../server/src/http/paging.ts'
import { startServer } from '../../server/src/server.ts'
import { openPool } from '../../server/src/store/db.ts'
import { getHarness } from '../harness.ts'

/**
 * Every read is served by indexes (all of which begin with workspace_id), with a bounded number of
 * statements, never one per row. A second server on the same PostgreSQL database records every
 * statement the reads send; each is then EXPLAINed with sequential scans disabled, so any table
 * read that no index can serve still shows up as a Seq Scan. Runs on the PostgreSQL server leg;
 * the embedded leg runs the same SQL.
 */
const url = process.env.DATABASE_URL
const reads = operations.filter((op) => op.method === 'GET' && op.auth.kind === 'workspace')

function variants(op: (typeof reads)[number]): string[] {
  const json = z.toJSONSchema(querySchemaOf(op), { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { enum?: string[] }> }
  const out = ['']
  for (const [name, prop] of Object.entries(json.properties ?? {})) for (const v of prop.enum ?? []) out.push(`${name}=${v}`)
  return out
}

type Plan = { 'Node Type': string; 'Relation Name'?: string; Plans?: Plan[] }
const seqScans = (p: Plan): string[] => [
  ...(p['Node Type'] === 'Seq Scan' ? [p['Relation Name'] ?? '?'] : []),
  ...(p.Plans ?? []).flatMap(seqScans),
]

describe.skipIf(!url)('query plans (PostgreSQL server)', () => {
  test('every workspace read uses indexes only, and a bounded number of statements', async () => {
    const { sql } = await getHarness()
    const demo = await createDemoWorkspace(sql, { name: 'Plans' })
    let log: { query: string; params: unknown[] }[] = []
    const traced = openPool(url!, { max: 2, name: 'growth-plans-test', debug: (_c, query, params) => log.push({ query, params }) })
    const server = await startServer(loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' }), {
      db: { sql: traced, kind: 'server', freshEmbedded: false, close: () => traced.end() },
      log: createLogger('silent'),
    })
    try {
      const failures: string[] = []
      let explained = 0
      for (const op of reads) {
        for (const q of variants(op)) {
          log = []
          const r = await fetch(`${server.url}/api/v1${op.path}${q ? `?${q}` : ''}`, { headers: { Authorization: `Bearer ${demo.tokens.live}` } })
          expect(`${op.operationId}?${q} ${r.status}`).toBe(`${op.operationId}?${q} 200`)
          await r.text()
          const statements = log.filter((l) => /^\s*(SELECT|WITH)\b/i.test(l.query) && !l.query.includes('pg_catalog.'))
          if (statements.length > 12) failures.push(`${op.operationId}?${q}: ${statements.length} statements`)
          for (const s of statements) {
            const plan = await sql.begin(async (tx) => {
              await tx`SET LOCAL enable_seqscan = off`
              const [row] = await tx.unsafe(`EXPLAIN (FORMAT JSON) ${s.query}`, s.params as never[])
              return (row as unknown as { 'QUERY PLAN': { Plan: Plan }[] })['QUERY PLAN'][0]!.Plan
            })
            explained++
            const scans = seqScans(plan)
            if (scans.length) failures.push(`${op.operationId}?${q}: sequential scan of ${scans.join(', ')} in ${s.query.replace(/\s+/g, ' ').slice(0, 200)}`)
          }
        }
      }
      expect(explained).toBeGreaterThan(reads.length)
      expect(failures).toEqual([])
    } finally {
      await server.stop()
      await traced.end()
    }
  }, 120_000)
})
