import { type Span, trace } from '@opentelemetry/api'
import { SpanKind, SpanStatusCode, startSpan } from '../../core/tracing.ts'
import { type ObservedQuery, observeStatements } from './statement-observers.ts'

/**
 * Each statement a traced piece of work sends is a client span (OpenTelemetry's database
 * conventions): named by its operation (`SELECT`, `INSERT`...), with its text (`db.query.text`, the
 * statement as sent, $1.. for every value) and never its values. A statement outside any trace (the
 * workers' polling), or in one the sampler did not keep, makes no span: nothing is read or built then.
 */
export function traceStatements(): void {
  observeStatements(observer)
}

const ATTRIBUTES = { 'db.system.name': 'postgresql', 'db.system': 'postgresql' } as const

function observer(q: ObservedQuery) {
  if (!trace.getActiveSpan()?.isRecording()) return undefined
  // The operation is the template's first word: the statement as sent begins with the same one.
  const operation = operationOf(typeof q.strings === 'string' ? q.strings : q.strings[0] ?? '')
  const span = startSpan(operation, ATTRIBUTES, SpanKind.CLIENT)
  if (!span) return undefined
  return (sent: ObservedQuery, error?: unknown) => ended(span, operation, sent, error)
}

function ended(span: Span, operation: string, sent: ObservedQuery, error: unknown) {
  const statement = (sent.string ?? (typeof sent.strings === 'string' ? sent.strings : sent.strings.join('?'))).trim()
  // A template that begins with a fragment (`${...} ...`) shows its operation only once built.
  if (operation === 'SQL') {
    operation = operationOf(statement)
    span.updateName(operation)
  }
  span.setAttribute('db.query.text', statement)
  span.setAttribute('db.operation.name', operation)
  if (error !== undefined) {
    const code = (error as { code?: string }).code ?? 'error'
    span.setStatus({ code: SpanStatusCode.ERROR, message: code })
    span.setAttribute('error.type', code)
  }
  span.end()
}

/** The statement's first keyword (WITH ... counts as what it does only as WITH): a name of few values. */
function operationOf(text: string): string {
  const word = /^\s*(?:--[^\n]*\n\s*)*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase()
  return word ?? 'SQL'
}
