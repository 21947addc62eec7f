import { canonicalJson } from '../canonical-json.ts'
import { ApiError } from '../errors.ts'

export const MAX_BODY_BYTES = 1024 * 1024

const notAnObject = () =>
  new ApiError('invalid_body', 'The request body must be a JSON object, e.g. {"field": "value"}.')

/**
 * Read a request body of at most 1 MiB and parse it as a JSON object. Empty, malformed, not an
 * object, or too large: 400 invalid_body. A declared Content-Length over the cap is refused
 * before reading; a streamed body is read only up to the cap.
 */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > MAX_BODY_BYTES) throw tooLarge()
  const text = await readCapped(request)
  if (text.trim() === '') throw new ApiError('invalid_body', 'The request body is empty; this endpoint takes a JSON object.')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ApiError('invalid_body', 'The request body is not valid JSON.')
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw notAnObject()
  const nul = pathWithNul(value, '')
  if (nul !== undefined) throw new ApiError('invalid_request', `${nul || 'A field name'} contains a NUL character (\\u0000), which text may not hold.`)
  return value as Record<string, unknown>
}

/**
 * The path of the first string (value or key) holding U+0000, which PostgreSQL text cannot store.
 * Refused here, once for every body, rather than failing in the database.
 */
export function pathWithNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = pathWithNul(value[i], `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\u0000')) return path
      const found = pathWithNul(v, path ? `${path}.${k}` : k)
      if (found !== undefined) return found
    }
  }
  return undefined
}

function tooLarge() {
  return new ApiError('invalid_body', `The request body is larger than ${MAX_BODY_BYTES} bytes (1 MiB).`)
}

async function readCapped(request: Request): Promise<string> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks))
}

export { canonicalJson }
