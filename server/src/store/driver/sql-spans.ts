import { trace } from '@opentelemetry/api'
import { SpanKind, SpanStatusCode, startSpan } from '../../core/tracing.ts'
import { type ObservedQuery, observeStatements } from './statement-observers.ts'

/**
 * Each statement a traced piece of work sends is a client span (OpenTelemetry's database
 * conventions): named by its operation (`SELECT`, `INSERT`...), with its text (`db.query.text`, the
 * statement as sent, $1.. for every value) and never its values. A statement outside any trace (the
 * workers' polling) makes no span.
 */
export function traceStatements(): void {
  observeStatements(observer)
}

function observer(q: ObservedQuery) {
  if (!trace.getActiveSpan()) return undefined
  const text = typeof q.strings === 'string' ? q.strings : q.strings.join('?')
  const span = startSpan(operationOf(text), { 'db.system.name': 'postgresql', 'db.system': 'postgresql' }, SpanKind.CLIENT)
  if (!span) return undefined
  return (sent: ObservedQuery, error?: unknown) => {
    const statement = (sent.string ?? text).trim()
    span.updateName(operationOf(statement))
    span.setAttributes({ 'db.query.text': statement, 'db.operation.name': operationOf(statement) })
    if (error !== undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as { code?: string }).code ?? 'error' })
      span.setAttribute('error.type', (error as { code?: string }).code ?? 'error')
    }
    span.end()
  }
}

/** The statement's first keyword (WITH ... counts as what it does only as WITH): a name of few values. */
function operationOf(text: string): string {
  const word = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase()
  return word ?? 'SQL'
}
