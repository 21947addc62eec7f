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
