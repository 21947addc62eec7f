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

/** How far the resident set may grow past what the last full collection left before another. */
export const HEAP_GROWTH_BYTES = 32 * 1024 * 1024
const CHECK_EVERY_MS = 1000

/**
 * Keeps the process's resident set steady while it owns an embedded database.
 *
 * JavaScriptCore counts PGlite's WebAssembly memory (128 MB at least) as memory its heap owns, and
 * lets the heap grow in proportion before a full collection: under load the garbage of answered
 * requests piled up by about 1 MB a second (80 s: 91 -> 157 MB of JavaScript heap) while the live
 * objects stayed at about 110,000. A full collection when the resident set has grown HEAP_GROWTH_BYTES
 * past what the previous one left brings it back; on a quiet server it never runs. Returns the stop.
 */
export function startHeapGuard(growthBytes = HEAP_GROWTH_BYTES): () => void {
  let floor = process.memoryUsage.rss()
  const timer = setInterval(() => {
    if (process.memoryUsage.rss() <= floor + growthBytes) return
    Bun.gc(true)
    floor = process.memoryUsage.rss()
  }, CHECK_EVERY_MS)
  timer.unref?.()
  return () => clearInterval(timer)
}
