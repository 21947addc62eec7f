import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDatabase } from '../../server/src/store/db.ts'
import { EMBEDDED_SHARED_BUFFERS } from '../../server/src/store/embedded-memory.ts'

describe('the embedded database lock', () => {
  test('a lock left by a crashed owner that had our pid is taken over, not trusted', async () => {
    // As after a kill -9 in a container: the restarted process gets the same pid, and the lock
    // file and socket of its dead predecessor are still in DATA_DIR.
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-stale-lock-'))
    writeFileSync(join(dataDir, 'owner.lock'), String(process.pid))
    writeFileSync(join(dataDir, '.s.PGSQL.5432'), '')
    const db = await openDatabase({ dataDir })
    try {
      expect(db.kind).toBe('embedded-owner')
      const [row] = await db.sql`SELECT 1 AS one`
      expect(row!.one).toBe(1)
      // While we own it, a second open in this process goes through our socket.
      const again = await openDatabase({ dataDir })
      expect(again.kind).toBe('embedded-client')
      expect((await again.sql`SELECT 2 AS two`)[0]!.two).toBe(2)
      await again.close()
    } finally {
      await db.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 30_000)
})

describe('the embedded database memory', () => {
  // The embedded database whatever DATABASE_URL says: this is about how PGlite is started.
  test('it runs with the small buffer pool that keeps the server under 256 MB (docs/performance.md)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-embedded-memory-'))
    const db = await openDatabase({ dataDir })
    try {
      expect(db.kind).toBe('embedded-owner')
      const [row] = await db.sql<{ shared_buffers: string }[]>`SHOW shared_buffers`
      expect(row!.shared_buffers).toBe(EMBEDDED_SHARED_BUFFERS)
      expect(EMBEDDED_SHARED_BUFFERS).toBe('16MB')
    } finally {
      await db.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
