import { readCappedBytes } from '../core/capped-body.ts'

/**
 * Reading a console form: an application/x-www-form-urlencoded body of at most 16 KiB (the console's
 * forms hold a token, a choice and a reason of at most 500 characters). A body of any other type
 * has no fields, so it carries no CSRF token and is refused as such (403); a larger one is 413.
 * A form that carries a document (the policy page's) is read with its own, larger bound. A body
 * without a Content-Length is read only until it passes the bound (core/capped-body.ts).
 */

const MAX_FORM_BYTES = 16 * 1024

type FormRead = { fields: URLSearchParams } | { refused: string; status: number }

export async function readForm(request: Request, maxBytes = MAX_FORM_BYTES): Promise<FormRead> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') return { fields: new URLSearchParams() }
  const declared = Number(request.headers.get('content-length') ?? '0')
  if (declared > maxBytes) return { refused: `The form is larger than ${maxBytes} bytes.`, status: 413 }
  // Read only up to the bound: a form sent in chunks (no Content-Length) is refused once it passes it.
  const bytes = await readCappedBytes(request, maxBytes)
  if ('tooLarge' in bytes) return { refused: `The form is larger than ${maxBytes} bytes.`, status: 413 }
  return { fields: new URLSearchParams(new TextDecoder().decode(bytes)) }
}
