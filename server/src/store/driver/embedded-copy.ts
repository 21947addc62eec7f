/**
 * `COPY table (columns) FROM STDIN` on the embedded database: recognising it in a simple Query
 * message, the CopyInResponse the socket's queue answers, and the statement PGlite runs once the
 * data is in (embedded-queue.ts runs it).
 */

/** A COPY ... FROM STDIN under way: whose, the statement PGlite runs at CopyDone, the data so far. */
export type CopyIn = { handlerId: number; statement: string; chunks: Uint8Array[] }

/** A simple query that is a COPY ... FROM STDIN (anything else goes to PGlite as it is). */
const COPY_FROM_STDIN = /^\s*COPY\s[^;]*\sFROM\s+STDIN\b[^;]*;?\s*$/is
const UPPER_C = 0x43
const LOWER_C = 0x63

/** Whether a Query message is a COPY ... FROM STDIN: its text read only when it starts with COPY. */
export function isCopyFromStdin(message: Uint8Array): boolean {
  let i = 5
  while (i < message.length && (message[i] === 0x20 || (message[i]! >= 0x09 && message[i]! <= 0x0d))) i++
  if (message[i] !== UPPER_C && message[i] !== LOWER_C) return false
  return COPY_FROM_STDIN.test(cString(message, 5))
}

/**
 * `COPY table (columns) FROM STDIN [options]`: the table with its columns and the options. A COPY
 * without a column list is refused (the CopyInResponse gives the columns' count).
 */
const COPY_WITH_COLUMNS = /^\s*COPY\s+([^(;]+?)\s*\(([^)]*)\)\s*FROM\s+STDIN\b([^;]*);?\s*$/is

/** The statement PGlite runs at CopyDone and the CopyInResponse to answer now (text or binary, one format code a column); null without a column list. */
export function copyFromStdin(text: string): { statement: string; response: Uint8Array } | null {
  const m = COPY_WITH_COLUMNS.exec(text)
  if (!m) return null
  const [, table, columns, options] = m
  const count = columns!.split(',').filter((c) => c.trim() !== '').length
  const binary = /\bbinary\b/i.test(options!)
  const response = new Uint8Array(1 + 4 + 1 + 2 + 2 * count)
  const view = new DataView(response.buffer)
  response[0] = 0x47 // 'G'
  view.setInt32(1, response.length - 1)
  response[5] = binary ? 1 : 0
  view.setInt16(6, count)
  for (let i = 0; i < count; i++) view.setInt16(8 + 2 * i, binary ? 1 : 0)
  return { statement: `COPY ${table} (${columns}) FROM '/dev/blob'${options}`, response }
}

/** The NUL-terminated text at `at` of a wire message. */
export function cString(message: Uint8Array, at: number): string {
  const end = message.indexOf(0, at)
  return new TextDecoder().decode(message.subarray(at, end < 0 ? message.length : end))
}

/** A simple Query message ('Q') of `text`. */
export function simpleQuery(text: string): Uint8Array {
  const body = new TextEncoder().encode(`${text}\0`)
  const message = new Uint8Array(5 + body.length)
  message[0] = 0x51 // 'Q'
  new DataView(message.buffer).setInt32(1, 4 + body.length)
  message.set(body, 5)
  return message
}
