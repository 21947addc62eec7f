import { describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { createDemoWorkspace, type DemoWorkspace } from '../../server/src/demo/index.ts'
import { operations } from '../../server/src/http/operations.ts'
import { cursorNames, querySchemaOf } from '../../server/src/http/paging.ts'
import { call, getHarness } from '../harness.ts'

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

describe('workspace isolation', () => {
  test('no read answers anything of another workspace', async () => {
    const { sql } = await getHarness()
    const a: DemoWorkspace = await createDemoWorkspace(sql, { name: 'Isolation A' })
    const b: DemoWorkspace = await createDemoWorkspace(sql, { name: 'Isolation B' })
    const [idsA, idsB] = await Promise.all([idsOf(a.workspace.id), idsOf(b.workspace.id)])
    expect(idsA.length).toBeGreaterThan(1000)
    const [seenByA, seenByB] = [await everyAnswer(a.tokens.live), await everyAnswer(b.tokens.live)]
    // The answers do show the workspace's own records...
    expect(idsA.filter((id) => seenByA.includes(id)).length).toBeGreaterThan(500)
    // ...and never one of the other's.
    expect(idsB.filter((id) => seenByA.includes(id))).toEqual([])
    expect(idsA.filter((id) => seenByB.includes(id))).toEqual([])
  }, 120_000)
})
