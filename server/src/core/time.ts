/** Times (CONTRACT: Shapes): ISO 8601 UTC strings with milliseconds, e.g. 2026-11-20T09:30:00.000Z. */
export const iso = (d: Date | string): string => new Date(d).toISOString()

export const isoOrNull = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null)
