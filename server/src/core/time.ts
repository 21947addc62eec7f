/** Times (CONTRACT: Shapes): ISO 8601 UTC strings with milliseconds, e.g. 2026-11-20T09:30:00.000Z. */
export const iso = (d: Date | string): string => new Date(d).toISOString()

export const isoOrNull = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null)

/** Whether an instant falls in the years PostgreSQL stores and ISO 8601 writes with four digits: 0001 to 9999, in UTC. */
export const inStoredYears = (d: Date): boolean => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999
