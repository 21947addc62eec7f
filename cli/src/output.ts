/**
 * The CLI's one output writer.
 * - For people: readable lines and tables on stdout; notes and warnings on stderr.
 * - With --json: exactly one JSON object on stdout and nothing else (stderr stays quiet too, except
 *   for errors), so `growth ... --json | jq` always works.
 * - Errors: `error: <message>` on stderr, stdout untouched.
 */

export type Human = string | string[]

export type Output = {
  readonly json: boolean
  /** The command's result: `data` as JSON with --json, otherwise the human rendering. Once per command. */
  result(data: object, human: () => Human): void
  /** A message for a person (progress, hints, warnings): stderr, and only without --json. */
  note(message: string): void
}

export function createOutput(opts: { json?: boolean } = {}): Output {
  const json = Boolean(opts.json)
  let printed = false
  return {
    json,
    result(data, human) {
      if (printed) throw new Error('output.result() called twice: a command prints exactly one result')
      printed = true
      if (json) {
        writeOut(`${JSON.stringify(data, null, 2)}\n`)
      } else {
        const text = human()
        const lines = Array.isArray(text) ? text : [text]
        writeOut(lines.map((l) => `${l}\n`).join(''))
      }
    },
    note(message) {
      if (!json) writeErr(`${message}\n`)
    },
  }
}

export function writeOut(text: string) {
  process.stdout.write(terminalText(text))
}

export function writeErr(text: string) {
  process.stderr.write(terminalText(text))
}

/**
 * What the CLI prints holds text it did not write (an agent's summary, a person's name, a receiver's
 * answer), and a terminal acts on control characters: an ESC sequence can erase or rewrite a line,
 * hide text or set the clipboard, a carriage return writes over the line. So every C0 control but
 * tab and newline, DEL and every C1 control is printed as its `\u` escape (valid JSON too, where it
 * stands inside a string: --json keeps the value); the one sequence the CLI itself writes, bold on
 * and off around a table's header, is kept.
 */
const CONTROL = /\u001b\[(?:1|22)m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

const terminalText = (text: string) => text.replace(CONTROL, (c) => (c.length > 1 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))

/**
 * A value shown inside a line (a table's cell, a log entry's message): its line breaks and bidi
 * controls as `\u` escapes as well. A line break is no terminal control, so terminalText keeps it for
 * the CLI's own lines; inside a value it would start a line the CLI did not write (an agent's
 * resource forging a row of `growth admin inbox`). A bidi override or isolate would turn the rest of
 * the line around where the terminal lays out right-to-left text.
 */
const LINE_BREAKING = /[\n\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

export const oneLine = (value: string) => value.replace(LINE_BREAKING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** The one format of errors, whatever the mode: a line on stderr. */
export function printError(message: string) {
  writeErr(`error: ${message}\n`)
}

/** Wait until everything written to stdout and stderr has been handed to the OS (before process.exit). */
export async function flush(): Promise<void> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) => new Promise<void>((resolve) => void stream.write('', () => resolve())),
    ),
  )
}

/** Rows of cells as aligned columns, two spaces apart, each line prefixed with `indent`. */
export function table(rows: string[][], indent = '  '): string[] {
  const widths: number[] = []
  // A row of one cell among rows of several (an attempt's error under it) spans the line: it sizes no column.
  const columns = Math.max(...rows.map((r) => r.length))
  const cells = rows.map((row) => row.map(oneLine))
  for (const row of cells) if (row.length > 1 || columns === 1) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return cells.map((row) => indent + row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
}

/**
 * Any JSON-like value as readable, indented lines (`key: value`), for data with no fixed shape. An
 * item of a list is one line (`- key=value  key=value`) when its members are plain values, else a
 * block of `key: value` lines of its own: never JSON in the middle of the lines.
 */
export function describe(value: unknown, indent = '  '): string[] {
  if (value === null || typeof value !== 'object') return [`${indent}${scalar(value)}`]
  if (Array.isArray(value)) {
    if (!value.length) return [`${indent}(none)`]
    return value.flatMap((item) => {
      if (!isRecord(item)) return [`${indent}- ${scalar(item)}`]
      if (Object.values(item).every(isPlain)) return [`${indent}- ${inline(item)}`]
      const [first = '', ...rest] = describe(item, `${indent}  `)
      return [`${indent}- ${first.trimStart()}`, ...rest]
    })
  }
  const lines: string[] = []
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      const simpleArray = Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')
      if (simpleArray) lines.push(`${indent}${key}: ${(v as unknown[]).length ? listLine(v as unknown[]) : '(none)'}`)
      else lines.push(`${indent}${key}:`, ...describe(v, `${indent}  `))
    } else {
      lines.push(`${indent}${key}: ${scalar(v)}`)
    }
  }
  return lines.length ? lines : [`${indent}(none)`]
}

/** A list of plain values on one line: sentences one after another, anything else with commas. */
function listLine(values: unknown[]): string {
  const sentences = values.every((x) => typeof x === 'string' && /[.!?]$/.test(x))
  return values.map(scalar).join(sentences ? ' ' : ', ')
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)

/** A value that fits on a line: a scalar, a time, or a list of scalars. */
const isPlain = (v: unknown): boolean =>
  v === null || typeof v !== 'object' || v instanceof Date || (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object'))

/** An object of plain values (isPlain) on one line: `key=value  key=a,b`. */
function inline(obj: Record<string, unknown>): string {
  return Object.entries(obj)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? (v.length ? v.map(scalar).join(',') : '(none)') : scalar(v)}`)
    .join('  ')
}

function scalar(v: unknown): string {
  if (v instanceof Date) return v.toISOString()
  if (typeof v === 'string') return oneLine(v)
  if (v === undefined) return '-'
  return JSON.stringify(v)
}

/** The --json flag every command takes: `cmd.option(...JSON_FLAG)`. */
export const JSON_FLAG = ['--json', 'print the result as one JSON object on stdout, and nothing else'] as const
