import type { Sql } from '../../server/src/store/driver/db.ts'

/**
 * Reads what a recorded statement costs: EXPLAIN (ANALYZE) of it with the planner's normal
 * settings, once as a custom plan (the parameters known, as PGlite and unnamed statements plan
 * it) and once as a generic plan (as a PostgreSQL server may plan a prepared statement after five
 * runs). It runs in a transaction that is rolled back, so a write changes nothing. A write that
 * can no longer run (its row exists now) is read from EXPLAIN without ANALYZE: estimates.
 */
export type PlanNode = {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Plan Rows'?: number
  'Actual Rows'?: number
  'Actual Loops'?: number
  'Rows Removed by Filter'?: number
  'Rows Removed by Index Recheck'?: number
  'Rows Removed by Join Filter'?: number
  Plans?: PlanNode[]
}

export type Reading = { mode: 'custom' | 'generic'; analyzed: boolean; plan: PlanNode }

class Rollback extends Error {}
let probes = 0

/** `sql` must be one connection (max: 1): a prepared statement lives on the connection that made it. */
export async function readPlans(sql: Sql, query: string, params: unknown[], types: number[] = []): Promise<Reading[]> {
  const literals = params.map((p, i) => literal(p, types[i]))
  const readings: Reading[] = []
  for (const mode of ['custom', 'generic'] as const) {
    for (const analyzed of [true, false]) {
      let plan: PlanNode | undefined
      const name = `cost_probe_${++probes}`
      try {
        await sql.begin(async (tx) => {
          await tx.unsafe(`SET LOCAL plan_cache_mode = force_${mode}_plan`)
          await tx.unsafe(`PREPARE ${name} AS ${query}`)
          try {
            const args = literals.length ? `(${literals.join(', ')})` : ''
            const [row] = await tx.unsafe(`EXPLAIN (${analyzed ? 'ANALYZE, ' : ''}FORMAT JSON) EXECUTE ${name}${args}`)
            plan = (row as unknown as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan
          } finally {
            // PREPARE outlives a rolled-back transaction, but not an aborted one's end.
            await tx.unsafe(`DEALLOCATE ${name}`).catch(() => {})
          }
          throw new Rollback()
        })
      } catch (err) {
        if (!(err instanceof Rollback) && !plan) {
          await sql.unsafe(`DEALLOCATE ${name}`).catch(() => {})
          if (!analyzed) throw new Error(`cannot EXPLAIN ${oneLine(query)}: ${(err as Error).message}`)
          continue
        }
      }
      if (plan) {
        readings.push({ mode, analyzed, plan })
        break
      }
    }
  }
  return readings
}

/** A parameter as the statement received it, as an SQL literal of unknown type (the statement casts it). */
export function literal(p: unknown, type?: number): string {
  const text = type === 114 || type === 3802 ? (p === null ? null : JSON.stringify(p)) : asText(p)
  return text === null ? 'NULL' : `'${text.replace(/'/g, "''")}'`
}

function asText(p: unknown): string | null {
  if (p === null || p === undefined) return null
  if (typeof p === 'string') return p
  if (p instanceof Date) return p.toISOString()
  if (p instanceof Uint8Array) return `\\x${Buffer.from(p).toString('hex')}`
  if (Array.isArray(p)) return `{${p.map((x) => (x === null || x === undefined ? 'NULL' : Array.isArray(x) ? asText(x) : `"${asText(x)!.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`
  // A postgres.js parameter helper (sql.json, typed values): its value.
  if (typeof p === 'object' && 'value' in p && 'type' in p) return asText((p as { value: unknown }).value)
  if (typeof p === 'object') return JSON.stringify(p)
  return String(p)
}

export const oneLine = (query: string) => query.replace(/\s+/g, ' ').trim()

/** Every node that reads rows from a table or an index, with how many it read over all its loops. */
export function scans(node: PlanNode, out: { node: PlanNode; examined: number }[] = []) {
  if (node['Relation Name'] !== undefined || node['Index Name'] !== undefined) {
    const read = (node['Actual Rows'] ?? node['Plan Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)
    out.push({ node, examined: Math.round(read * (node['Actual Loops'] ?? 1)) })
  }
  for (const child of node.Plans ?? []) scans(child, out)
  return out
}
