import { buildOpenApi } from '../../server/src/http/openapi/document.ts'
import { operations } from '../../server/src/http/operations.ts'
import { validatorFor } from './arbitraries.ts'

/**
 * Every answer the black-box tests receive is held against the OpenAPI document the server
 * publishes (built from the same declarations, without a server): its status must be one the
 * operation documents, and its body must match the schema documented for that status, exactly
 * (response models are closed: an extra member is a difference). The SDK's types are generated from
 * this document, so this is what keeps them true.
 */

type Json = Record<string, any>

let doc: Json | undefined
let validate: ReturnType<typeof validatorFor> | undefined
const byRoute = new Map(operations.map((op) => [`${op.method} /api/v1${op.path}`, op]))

/** Which (operationId, status) pairs were checked in this test process, for the coverage test. */
export const checked = new Set<string>()

/** Throws, naming the difference, when an answer does not match the document; returns what it checked. */
export function checkAgainstDocument(method: string, url: string, status: number, body: unknown, headers: Headers): string | undefined {
  doc ??= buildOpenApi(operations)
  validate ??= validatorFor(doc)
  const path = new URL(url, 'http://localhost').pathname
  const op = byRoute.get(`${method} ${path}`)
  if (!op) {
    // Not an operation: an unknown route (404) or a method the path lacks (405, with Allow), both in the envelope;
    // or the reference page, which is HTML.
    if (path.startsWith('/api/v1/reference') && status === 200) return undefined
    const v = validate({ $ref: '#/components/schemas/Error' }, body)
    if (!v.valid) throw new Error(`${method} ${path} answered ${status} outside the envelope: ${v.errors}`)
    return undefined
  }
  const item = doc.paths[`/api/v1${op.path}`][method.toLowerCase()]
  const documented = item.responses[String(status)]
  if (!documented) throw new Error(`${op.operationId} answered ${status}, which its OpenAPI description does not document (${Object.keys(item.responses).join(', ')})`)
  const schema = documented.content['application/json'].schema
  const v = validate(schema, body)
  if (!v.valid) throw new Error(`${op.operationId} answered ${status} with a body its OpenAPI description does not allow: ${v.errors}\n${JSON.stringify(body).slice(0, 2000)}`)
  if (status >= 400 && (body as Json).error.requestId !== headers.get('x-request-id')) {
    throw new Error(`${op.operationId} answered ${status} with error.requestId ${(body as Json).error.requestId}, not its X-Request-Id ${headers.get('x-request-id')}`)
  }
  const key = `${op.operationId} ${status}`
  checked.add(key)
  return key
}
