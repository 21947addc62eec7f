import { newId, type IdKind } from '../server/src/core/ids.ts'
import { getHarness } from './harness.ts'

/**
 * Rows inserted straight into the test database for a workspace the test made: `rows(table, kind,
 * workspaceId, [...])` gives each row a fresh id of `kind` (stamped with its created_at, so ids sort
 * by time like real ones) and returns the ids in order.
 */
export async function insertRows(table: string, kind: IdKind | null, workspaceId: string, rows: Record<string, unknown>[]): Promise<string[]> {
  const { sql } = await getHarness()
  const full = rows.map((r) => {
    const createdAt = (r.created_at as Date | undefined) ?? new Date()
    const json = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v !== null && typeof v === 'object' && !(v instanceof Date) && !Array.isArray(v) ? sql.json(v as never) : Array.isArray(v) && typeof v[0] === 'object' ? sql.json(v as never) : v]))
    return { workspace_id: workspaceId, ...(kind ? { id: newId(kind, createdAt) } : {}), ...json, created_at: createdAt }
  })
  // One statement per row: postgres.js takes the columns of a multi-row insert from its first row.
  for (const row of full) await sql`INSERT INTO ${sql(table)} ${sql(row as never)}`
  return full.map((r) => (r as { id?: string }).id ?? '')
}

export const daysAgo = (d: number, from = Date.now()) => new Date(from - d * 86_400_000)
