import type { PGliteOptions } from '@electric-sql/pglite'

/**
 * How the embedded database (PGlite) is started, for a small resident set.
 *
 * PGlite allocates PostgreSQL's shared buffers inside its WebAssembly memory and touches all of
 * them at start, so `shared_buffers` (128MB, initdb's default) is resident from the first second
 * and is never given back (WebAssembly memory does not shrink). The data files are ordinary files
 * read through the operating system's page cache, so a smaller buffer pool costs a read call on a
 * miss, not a disk access. EMBEDDED_SHARED_BUFFERS = 16MB keeps the server under 256 MB under the
 * benchmark's load (docs/performance.md, test/bench/embedded.ts).
 */
export const EMBEDDED_SHARED_BUFFERS = '16MB'

export function embeddedOptions(defaultStartParams: string[]): PGliteOptions {
  return { startParams: [...defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`] }
}

/**
 * On an empty directory PGlite runs initdb in a second, temporary instance (about 700 MB at its
 * peak). Its WebAssembly memory is only returned once the garbage collector has run twice, which
 * an idle server may not do for a long time: collect now, so a first `npm start` does not keep it.
 */
export async function releaseInitdbMemory(): Promise<void> {
  Bun.gc(true)
  await Bun.sleep(0)
  Bun.gc(true)
}
