import { buildOpenApi } from '../../server/src/http/openapi/document.ts'
import { operations } from '../../server/src/http/operations.ts'
import { validatorFor } from './arbitraries.ts'

/**
 * Every webhook body a test's receiver gets is held against the OpenAPI document's top-level
 * `webhooks` (built from the same declarations the server publishes, without a server), as
 * response-models.ts holds every answer: the schema of the body's own event type, exactly (event
 * models are closed: a field the emitters add without a schema is a difference). The receivers the
 * tests share (test/webhooks/support.ts receiver(), and the CLI tests' own) call checkReceived on
 * every body, so the whole suite's deliveries are checked.
 */

type Json = Record<string, any>

let doc: Json | undefined
let validate: ReturnType<typeof validatorFor> | undefined


/** What is wrong with a delivery body as an event of its type ('' when it is valid). */
export function eventProblems(body: string | unknown): string {
  doc ??= buildOpenApi(operations)
  validate ??= validatorFor(doc)
  let event: Json
  try {
    event = (typeof body === 'string' ? JSON.parse(body) : body) as Json
  } catch (err) {
    return `a webhook body that is not JSON (${(err as Error).message}): ${String(body).slice(0, 200)}`
  }
  const type = event?.event
  const schema = typeof type === 'string' ? doc.webhooks[type]?.post?.requestBody?.content?.['application/json']?.schema : undefined
  if (!schema) return `a webhook body of an event type the OpenAPI document's webhooks do not name (${JSON.stringify(type)}): ${JSON.stringify(event).slice(0, 200)}`
  const v = validate(schema, event)
  return v.valid ? '' : `a ${type} event (${event.id}) that its schema in the OpenAPI document's webhooks does not allow: ${v.errors.replace(/(^|; )data\//g, '$1event/')}\n${JSON.stringify(event).slice(0, 2000)}`
}

/**
 * For a receiver: a body that is not a valid event of its type fails the test that is running (an
 * uncaught error, which bun:test charges to the running test) while the receiver still answers
 * as its test asked, so the delivery under test goes on as it would have.
 */
export function checkReceived(body: string): void {
  const problem = eventProblems(body)
  if (problem) queueMicrotask(() => {
    throw new Error(problem)
  })
}
