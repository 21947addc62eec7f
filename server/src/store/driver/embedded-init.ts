/**
 * Run as a process of its own (createEmbeddedFiles, embedded-memory.ts): creates a new embedded
 * database's files in the directory given, with PGlite's initdb, and exits. Its memory (initdb
 * takes 700-1,000 MB at its peak in WebAssembly) goes with the process.
 */
import { PGlite } from '@electric-sql/pglite'
import { embeddedOptions } from './embedded-memory.ts'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: bun embedded-init.ts <directory>')
  process.exit(2)
}
const db = await PGlite.create(dir, embeddedOptions(PGlite.defaultStartParams))
await db.close()
