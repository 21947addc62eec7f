// Imports a CSV of contacts, 100 a request: node import.js [file] (default contacts.csv).
// Run it again after a crash, a Ctrl-C or the hourly rate limit, and it resumes: nothing is done twice.
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { parse } from 'csv-parse'
import { Growth, RateLimitError } from '@growth-service/sdk'

const file = process.argv[2] ?? 'contacts.csv'
const growth = new Growth({ maxRetries: 4 }) // GROWTH_TOKEN and GROWTH_BASE_URL

// Each request's Idempotency-Key is the file's hash and the request's number. Sent again (a rerun of
// the same file), a key gets the first answer back from the API's memory (24 hours), not a second import.
const hash = createHash('sha256')
for await (const chunk of createReadStream(file)) hash.update(chunk)
const fileId = hash.digest('hex').slice(0, 32)

const totals = { rows: 0, requests: 0, replayed: 0, created: 0, updated: 0, skipped: 0 }
let batch = []

async function send() {
  totals.requests++
  const { data, replayed } = await growth.contacts
    .import({ contacts: batch }, { idempotencyKey: `contacts-${fileId}-${totals.requests}` })
    .withResponse()
  if (replayed) totals.replayed++
  totals.created += data.totals.created
  totals.updated += data.totals.updated
  totals.skipped += data.totals.skipped
  batch = []
}

// csv-parse streams the file a record at a time: memory does not grow with it.
const records = createReadStream(file).pipe(parse({ bom: true, columns: true, skip_empty_lines: true, trim: true }))
try {
  for await (const row of records) {
    totals.rows++
    batch.push({
      email: row.email,
      firstName: row.first_name || undefined,
      lastName: row.last_name || undefined,
      company: row.company || undefined,
      tags: row.tags ? row.tags.split(';') : undefined,
    })
    if (batch.length === 100) await send()
  }
  if (batch.length) await send()
} catch (error) {
  if (!(error instanceof RateLimitError)) throw error
  console.error(`The hour's calls are used up after ${totals.requests - 1} requests: run this again in ${error.retryAfter} s to go on.`)
  process.exit(1)
}

console.log(`Imported ${file}: ${totals.rows} rows in ${totals.requests} requests (${totals.replayed} done before, answered again)`)
console.log(`  created ${totals.created}, updated ${totals.updated}, skipped ${totals.skipped}`)
