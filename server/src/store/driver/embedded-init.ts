/**
 * Run as a process of its own (createEmbeddedFiles, embedded-memory.ts): creates a new embedded
 * database's files in the directory given, with PGlite's initdb, and exits. Its memory (initdb
 * takes 700-1,000 MB at its peak in WebAssembly) goes with the process.
 */
import { PGlite } from '@electric-sql/pglite'
import { embeddedOptions } from './embedded-memory.ts'
import { holdOwnerOnly } from './embedded-permissions.ts'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: bun embedded-init.ts <directory>')
  process.exit(2)
}
// initdb's files are for the owner alone, whatever the umask this process was started with.
holdOwnerOnly(dir)
const db = await PGlite.create(dir, embeddedOptions(PGlite.defaultStartParams))
await db.close()
