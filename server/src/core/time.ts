/** Times (CONTRACT: Shapes): ISO 8601 UTC strings with milliseconds, e.g. 2026-11-20T09:30:00.000Z. */
export const iso = (d: Date | string): string => (d instanceof Date ? d : new Date(d)).toISOString()

export const isoOrNull = (d: Date | string | null | undefined): string | null => (d ? iso(d) : null)

/** Whether an instant falls in the years PostgreSQL stores and ISO 8601 writes with four digits: 0001 to 9999, in UTC. */
export const inStoredYears = (d: Date): boolean => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** A duration as people write it, `500ms`, `5s`, `30m`, `2h`, `5d` (or a bare number of milliseconds), in ms; undefined if it is not one. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim())
  if (!m) return undefined
  const ms = Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!
  return Number.isFinite(ms) ? Math.round(ms) : undefined
}
