import { checkAgainstDocument } from './response-models.ts'

export type Answer = { status: number; headers: Headers; body: any; text: string }

/**
 * One HTTP call to `base + path`; `body` is JSON-encoded unless it is a string. Every answer a test
 * receives must be what the OpenAPI document says it is (test/support/response-models.ts): its
 * status documented for the operation at `documentPath` (the path as the document names it, under
 * /api/v1) and its body in the envelope.
 */
export async function callAt(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  documentPath = path,
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.Authorization = `Bearer ${opts.token}`
  let body: string | undefined
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body)
    headers['Content-Type'] ??= 'application/json'
  }
  const res = await fetch(`${base}${path}`, { method, headers, body, signal: opts.signal })
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  checkAgainstDocument(method, documentPath, res.status, parsed, res.headers)
  return { status: res.status, headers: res.headers, body: parsed, text }
}
