/**
 * A URL fit to print (a start's banner, an error, a log line): its password, if it carries one, as
 * `***`. DATABASE_URL and an OTLP endpoint may carry one (`https://user:password@collector`).
 */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url)
    if (u.password) u.password = '***'
    return u.toString()
  } catch {
    return '(not a URL)'
  }
}

/**
 * Which server and database a DATABASE_URL names (`host:port/database`), never its user or password:
 * several instances, and the operator commands, are told apart by it. A Unix socket
 * (`?host=/var/run/postgresql`) is named by its directory. Undefined for what is not a URL.
 */
export function databaseShown(databaseUrl: string): string | undefined {
  if (!URL.canParse(databaseUrl)) return undefined
  const u = new URL(databaseUrl)
  return `${u.searchParams.get('host') || u.host || 'localhost'}${u.pathname}`
}
