/**
 * Whoever wants to see the statements the process sends (the SQL spans, sql-spans.ts): each
 * observer is told as a statement is handed to postgres.js, in the caller's async context, and may
 * return what to call once it settled (with the query: its text, its error). The one wrapper of
 * postgres.js's Query (request-scope.ts) calls them; none is registered unless tracing is on.
 */
export type ObservedQuery = {
  /** The statement's text with $1.. placeholders (set once sent); never its values. */
  string?: string
  /** The template's parts, before the statement is built. */
  strings: readonly string[] | string
}
type StatementObserver = (q: ObservedQuery) => ((q: ObservedQuery, error?: unknown) => void) | undefined

export const statementObservers: StatementObserver[] = []

export function observeStatements(observer: StatementObserver): void {
  if (!statementObservers.includes(observer)) statementObservers.push(observer)
}
