import { createHash } from 'node:crypto'
import { createReadStream, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Command } from 'commander'
import { parse } from 'csv-parse'
import { BadRequestError, type ContactImport, Growth, GrowthError, type ImportContactsRequest, isSimulated } from '@growth-service/sdk'
import { CliError, Interrupted } from '../errors.ts'
import { createOutput, writeErr } from '../output.ts'
import { untilInterrupted } from './event-stream.ts'
import { importProgress } from './import-progress.ts'
import { withCredentials } from './refusal.ts'
import { addCredentialOptions, type CredentialOptions, type Credentials } from './credentials.ts'

/**
 * growth contacts import FILE: a CSV file with a header row, or JSON lines, sent in batches of 100.
 *
 * - Each batch's Idempotency-Key is made of the file's SHA-256 (with the body's other fields, such as
 *   --list-id, when given) and the batch's number, so running the same command again after a crash,
 *   a Ctrl-C or a refusal resumes: batches already done are answered from the API's memory of their
 *   key (replayed, not done again), and the counts still add up. (The API remembers a key for 24
 *   hours.) The same file with another --list-id is another import, with keys of its own.
 * - The file is read as a stream, twice (once to hash it, once to send it): memory does not grow with it.
 * - A row the API refuses is named by its line in the file; the rest of its batch is sent without it
 *   (under a key that names the rows left out, so a rerun does the same).
 * - A line that cannot be read (an unclosed quote, a wrong number of cells) stops the import at that
 *   line, named by the line where its record starts: every row before it is sent first, and the
 *   summary says what was imported; nothing from that line on is sent.
 * - A batch the API answers from its memory of the key (Idempotent-Replayed) was imported by an
 *   earlier run: its rows are counted as already imported, not as created again.
 * - A refusal of a whole batch (a 402 allowance, a 429), no answer, or Ctrl-C stops the import: the
 *   request out is answered, nothing more is sent, and the summary of what this run did is printed
 *   with the line it stopped at and that the same command resumes.
 * - A progress bar on a terminal (cli-progress), on stderr, stopped (the terminal restored) before
 *   anything else is said; a summary at the end.
 */

type ImportOptions = CredentialOptions & { listId?: string; json?: boolean }
type Contact = ImportContactsRequest['contacts'][number]
type Row = { line: number; contact: Contact }
/** The request body's fields beside the rows (--list-id): one import's batches all send the same. */
type Fields = Omit<ImportContactsRequest, 'contacts'>

const BATCH = 100

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
const FIELDS = ['email', 'name', 'firstName', 'lastName', 'company', 'phone', 'tags'] as const

/** A CSV header as a contact field: `First Name`, `first_name`, `firstName` all name firstName. */
function fieldOf(header: string): (typeof FIELDS)[number] | undefined {
  const key = header.trim().toLowerCase().replace(/[\s_-]+/g, '')
  return FIELDS.find((f) => f.toLowerCase() === key)
}

export function registerContactsImport(contacts: Command) {
  addCredentialOptions(contacts.command('import'))
    .description('import contacts from a CSV file (header row: email, name, first_name, last_name, company, phone, tags) or JSON lines, 100 a request; a rerun resumes')
    .argument('<file>', 'the file: .csv with a header row, or .jsonl / .ndjson with one contact object a line')
    .option('--list-id <id>', 'also add every contact to this list (lst_...)')
    .option('--json', 'print the summary as JSON')
    .addHelpText('after', '\nTags in CSV: separated by ; in one cell. Rows the API refuses are named by line; the rest is imported.\n')
    .action(withCredentials((credentials, opts: ImportOptions, file: string) => importFile(file, opts, credentials)))
}

type Summary = {
  file: string
  rows: number
  batches: number
  replayedBatches: number
  /** Rows of batches an earlier run of the same file had imported: answered again, not done again. */
  alreadyImported: number
  /** Rows a test token's import checked and did not record. */
  simulated: number
  created: number
  updated: number
  skipped: { doNotContact: number; unchanged: number }
  refused: { line: number; message: string }[]
  /**
   * Where the import stopped, nothing from that line on sent: a line that could not be read, a
   * request refused (its message) or no answer, or Ctrl-C (`interrupted`).
   */
  stoppedAt: { line: number; message: string } | null
}

/** A line of the file that cannot be read: the import stops there, after sending the rows before it. */
class UnreadableLine extends Error {
  constructor(
    readonly line: number,
    readonly why: string,
  ) {
    super(`line ${line}: ${why}`)
  }
}

async function importFile(file: string, opts: ImportOptions, credentials: Credentials) {
  let size: number
  try {
    const stat = statSync(file)
    if (stat.isDirectory()) throw new CliError(`cannot read ${file}: it is a directory; give the CSV or JSON-lines file to import`)
    size = stat.size
  } catch (err) {
    if (err instanceof CliError) throw err
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`)
  }
  const { token, baseUrl } = credentials
  const growth = new Growth({ token, baseUrl, maxRetries: 4 })
  // Every option that goes into the request body, beside the rows: sent with each batch, and part of its key.
  const fields: Fields = opts.listId ? { listId: opts.listId } : {}
  const importId = await importIdOf(file, fields)
  const summary: Summary = { file, rows: 0, batches: 0, replayedBatches: 0, alreadyImported: 0, simulated: 0, created: 0, updated: 0, skipped: { doNotContact: 0, unchanged: 0 }, refused: [], stoppedAt: null }
  const progress = importProgress(size, Boolean(process.stderr.isTTY) && !opts.json)
  const refuse = (line: number, message: string) => {
    summary.refused.push({ line, message })
    if (!opts.json) progress.say(`line ${line}: ${message}\n`)
  }
  await untilInterrupted(async (signal) => {
    // Ctrl-C: the bar goes at once (the terminal as it was); the request out is answered, no other is sent.
    signal.addEventListener('abort', () => {
      progress.stop()
      if (!opts.json) writeErr('Stopping once the request out is answered (Ctrl-C again stops at once)...\n')
    })
    /** A batch's failure (a refusal such as 402 or 429, or no answer): nothing more is sent, and it is thrown at the end. */
    let failure: { err: unknown } | undefined
    const halted = () => failure !== undefined || signal.aborted
    /** Stopped before these rows (read, not sent) were sent: they are not this run's. */
    const halt = (rows: Row[]) => {
      summary.rows -= rows.length
      summary.stoppedAt ??= { line: rows[0]!.line, message: 'interrupted' }
    }
    let batch: Row[] = []
    // One request out at a time, in the file's order (batch n is sent after batch n-1 was answered, so a
    // rerun's keys line up), while the next batch is read and parsed: the file's work overlaps the server's.
    let inFlight: Promise<void> | undefined
    /** Batches this run had answered: none, and a refusal (a wrong token, say) is told alone, with no summary of nothing. */
    let answered = 0
    const send = async () => {
      const rows = batch
      batch = []
      await inFlight
      if (halted()) return halt(rows)
      summary.batches++
      const key = `import-${importId}-${summary.batches}`
      inFlight = sendBatch(growth, rows, { key, fields }, summary, refuse).then(() => {
        answered++
      }, (err) => {
        // The failure is earlier in the file than anything else that stopped the import: it is where it stopped.
        failure = { err }
        summary.stoppedAt = { line: rows[0]!.line, message: (err as Error).message }
      })
    }
    const refuseRead = (line: number, message: string) => {
      summary.rows++
      refuse(line, message)
    }
    try {
      for await (const { row, bytes } of rowsOf(file, refuseRead)) {
        if (row) {
          summary.rows++
          batch.push(row)
          if (halted()) {
            halt(batch)
            batch = []
            break
          }
          if (batch.length === BATCH) await send()
        }
        progress.update(bytes, summary.rows)
      }
    } catch (err) {
      // A line that cannot be read ends the import there: the rows before it are sent (the batch
      // already out is answered first, and its failure, earlier in the file, is the one reported).
      if (!(err instanceof UnreadableLine)) {
        await inFlight
        progress.stop()
        throw failure ? failure.err : err
      }
      summary.stoppedAt = { line: err.line, message: err.why }
    }
    if (batch.length) await send()
    await inFlight
    // Rows refused while reading can be named before a batch sent earlier was answered: report in line order.
    summary.refused.sort((a, b) => a.line - b.line)
    if (!summary.stoppedAt) progress.update(size, summary.rows)
    progress.stop()
    if (failure && !answered) throw failure.err
    // What this run did, however it ended; then why it stopped, and that the same command resumes.
    createOutput({ json: opts.json }).result(summary, () => summaryLines(summary))
    const stop = summary.stoppedAt
    if (failure) {
      if (!opts.json) writeErr(`The import stopped at line ${stop!.line}: nothing from it on was sent. ${RESUME}\n`)
      throw failure.err
    }
    if (stop && signal.aborted) throw new Interrupted(`interrupted at line ${stop.line} of ${file}: nothing from it on was sent (the summary above says what this run did). ${RESUME}`)
  })
  if (summary.stoppedAt) {
    const { line, message } = summary.stoppedAt
    const before = summary.rows - summary.refused.filter((r) => r.line < line).length
    throw new CliError(
      `${file} line ${line}: ${message}. The import stopped there: ${before ? `the ${plural(before, 'row')} before it ${before === 1 ? 'was' : 'were'} imported (the summary above)` : 'no row before it was imported'}, nothing from line ${line} on was sent. Fix that line and run the same command again.`,
    )
  }
  // Some rows refused: the rest is imported, and the exit status says not all of it was.
  if (summary.refused.length) {
    const lines = summary.refused.slice(0, 10).map((r) => r.line).join(', ')
    throw new CliError(`${summary.refused.length} of ${plural(summary.rows, 'row')} refused (line${summary.refused.length === 1 ? '' : 's'} ${lines}${summary.refused.length > 10 ? ', ...' : ''}); the rest was imported`)
  }
}

const RESUME = "Run the same command again to resume: what this run did is answered again from the API's memory of it (24 hours), not done twice."

function summaryLines(s: Summary): string[] {
  const fresh = s.rows - s.alreadyImported - s.refused.length
  const head =
    s.alreadyImported && fresh <= 0
      ? `${s.file} was already imported: ${plural(s.rows, 'row')} in ${plural(s.batches, 'request')}, answered again from the API's memory of an earlier run; nothing was done twice.`
      : `Imported ${s.file}: ${plural(s.rows, 'row')} in ${plural(s.batches, 'request')}${s.alreadyImported ? ` (${plural(s.alreadyImported, 'row')} already imported by an earlier run, answered again, not done twice)` : ''}.`
  return [
    head,
    ...(s.simulated ? [`  simulated with a test token: ${plural(s.simulated, 'row')} checked, nothing recorded`] : []),
    `  ${s.alreadyImported ? 'this run: ' : ''}created ${s.created}, updated ${s.updated}, skipped ${s.skipped.doNotContact + s.skipped.unchanged} (${s.skipped.doNotContact} do not contact, ${s.skipped.unchanged} unchanged), refused ${s.refused.length}`,
    ...(s.stoppedAt ? [`  stopped at line ${s.stoppedAt.line}: nothing from it on was sent`] : []),
  ]
}

/**
 * What names one import in its batches' Idempotency-Keys: the file's SHA-256 and, when there are
 * any, the body's other fields (a rerun with another --list-id is another import, not a reuse of
 * the first one's keys, which the API would refuse as a different request).
 */
async function importIdOf(file: string, fields: Fields): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  if (Object.keys(fields).length) hash.update(`\n${JSON.stringify(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b)))}`)
  return hash.digest('hex').slice(0, 32)
}

/** The file's rows, each with its line, and how far into the file the reader is. Bad rows are refused here. */
async function* rowsOf(file: string, refuse: (line: number, message: string) => void): AsyncGenerator<{ row?: Row; bytes: number }> {
  if (/\.(jsonl|ndjson)$/i.test(file)) {
    const stream = createReadStream(file)
    let line = 0
    for await (const text of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
      line++
      if (!text.trim()) continue
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch (err) {
        refuse(line, `not JSON: ${(err as Error).message}`)
        continue
      }
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        refuse(line, 'not a JSON object')
        continue
      }
      yield { row: { line, contact: value as Contact }, bytes: stream.bytesRead }
    }
    return
  }
  let fields: ((typeof FIELDS)[number] | undefined)[] | undefined
  // The header is checked as it is read: a file of one line (a header and no rows, or not a CSV at all) is checked too.
  const header = (headers: string[]) => {
    fields = headers.map(fieldOf)
    const unknown = headers.filter((_, i) => !fields![i])
    if (unknown.length) throw new CliError(`${file} line 1: ${unknown.map((h) => JSON.stringify(h)).join(', ')} ${unknown.length === 1 ? 'is not a contact field' : 'are not contact fields'}; the columns are ${FIELDS.join(', ')} (any case, spaces or underscores)`)
    if (!fields.includes('email')) throw new CliError(`${file} line 1: no email column; the header row names the columns (email, name, first_name, ...)`)
    return headers
  }
  const parser = createReadStream(file).pipe(parse({ bom: true, columns: header, skip_empty_lines: true, trim: true, info: true, relax_column_count: false }))
  // Where the last record read ended, to name the line where a malformed one starts: csv-parse names
  // the line where it gave up, which for an unclosed quote is the end of the file.
  let last: { lines: number; emptyLines: number } | undefined
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number; bytes: number; empty_lines: number } }>) {
      last = { lines: info.lines, emptyLines: info.empty_lines }
      const contact: Record<string, unknown> = {}
      Object.values(record).forEach((value, i) => {
        const field = fields![i]!
        if (value === '') return
        contact[field] = field === 'tags' ? value.split(';').map((t) => t.trim()).filter(Boolean) : value
      })
      yield { row: { line: info.lines, contact: contact as Contact }, bytes: info.bytes }
    }
  } catch (err) {
    if (err instanceof CliError) throw err
    const e = err as { code?: string; lines?: number; empty_lines?: number; columns?: unknown; message: string }
    if (!e.code?.startsWith('CSV_')) throw err
    // The record starts on the line after the last one read, past the empty lines skipped since;
    // before any record, after the header (line 1 and the empty lines around it).
    const empty = e.empty_lines ?? 0
    const line = last ? last.lines + 1 + Math.max(0, empty - last.emptyLines) : Array.isArray(e.columns) ? 2 + empty : 1 + empty
    const why =
      e.code === 'CSV_QUOTE_NOT_CLOSED'
        ? 'a quote opened on this line is never closed'
        : e.message.replace(/^Invalid [^:]+: /, '').replace(/,? (on|at) line \d+/g, '').replace(/\.$/, '')
    if (!fields) throw new CliError(`${file} line ${line}: ${why}; nothing was sent`)
    throw new UnreadableLine(line, why)
  }
}

/**
 * Sends one batch. A 400 naming rows (`contacts.3.email ...`) refuses those rows by line and sends
 * the rest again, under a key that says which rows were left out; any other refusal ends the import.
 * A refusal the API kept under the key from an earlier run (a 402 allowance, a list not found:
 * answered again, Idempotent-Replayed) did nothing, so the batch is asked again under the next key
 * of a chain every rerun walks alike (`-again-1`, `-again-2`, ...): a rerun after the plan was
 * raised resumes instead of being told the old refusal for 24 hours, and still does nothing twice.
 */
async function sendBatch(
  growth: Growth,
  rows: Row[],
  settings: { key: string; fields: Fields },
  summary: Summary,
  refuse: (line: number, message: string) => void,
) {
  let left = rows
  let base = settings.key
  let again = 0
  // The same rows left out give the same key: a rerun resumes this retry too.
  const keyOf = () => (left === rows ? base : `${base}-less-${createHash('sha256').update(left.map((r) => r.line).join(',')).digest('hex').slice(0, 16)}`)
  for (;;) {
    if (!left.length) return
    try {
      const answer = await growth.contacts.import({ ...settings.fields, contacts: left.map((r) => r.contact) }, { idempotencyKey: keyOf() }).withResponse()
      if (answer.replayed) {
        summary.replayedBatches++
        summary.alreadyImported += left.length
        return
      }
      if (isSimulated(answer.data)) {
        summary.simulated += left.length
        return
      }
      const data = answer.data as ContactImport
      for (const r of data.results) {
        if (r.status === 'created') summary.created++
        else if (r.status === 'updated') summary.updated++
        else if (r.reason?.code === 'do_not_contact') summary.skipped.doNotContact++
        else summary.skipped.unchanged++
      }
      return
    } catch (err) {
      if (err instanceof GrowthError && err.headers['idempotent-replayed'] === 'true') {
        base = `${settings.key}-again-${++again}`
        continue
      }
      if (!(err instanceof BadRequestError)) throw err
      const named = rowErrors(err.message, left.length)
      if (!named.size) throw err
      for (const [index, message] of named) refuse(left[index]!.line, message)
      left = left.filter((_, i) => !named.has(i))
    }
  }
}

/**
 * `contacts.1.email is not a valid email. Unknown field contacts.2.colour.` -> row 1 and row 2, each
 * with its sentence. A sentence starts with a capital or with the row it is about (`contacts.3.email is required.`).
 */
function rowErrors(message: string, count: number): Map<number, string> {
  const out = new Map<number, string>()
  for (const sentence of message.split(/(?<=\.)\s+(?=[A-Z]|contacts\.\d)/)) {
    for (const m of sentence.matchAll(/contacts\.(\d+)\.?/g)) {
      const index = Number(m[1])
      if (index >= count) continue
      const text = sentence.replace(/contacts\.\d+\./g, '').replace(/\.$/, '')
      out.set(index, out.has(index) ? `${out.get(index)}; ${text}` : text)
    }
  }
  return out
}
