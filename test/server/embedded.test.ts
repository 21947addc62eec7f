import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { EMBEDDED_SHARED_BUFFERS } from '../../server/src/store/driver/embedded-memory.ts'

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

  test('an owner that is closing (its socket refuses) is waited for, and the database taken over once it is gone', async () => {
    // As when another growth command ends just as this one looks: its lock names a live process
    // and its socket file is still there, but nothing answers on it. Opening must not hand back a
    // connection that fails at the first statement; it waits for the owner to go, then owns.
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-closing-owner-'))
    const closing = Bun.spawn(['sleep', '1.5'])
    writeFileSync(join(dataDir, 'owner.lock'), String(closing.pid))
    writeFileSync(join(dataDir, '.s.PGSQL.5432'), '')
    const started = Date.now()
    const db = await openDatabase({ dataDir })
    try {
      expect(db.kind).toBe('embedded-owner')
      expect(closing.exitCode).toBe(0)
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_000)
      expect((await db.sql`SELECT 1 AS one`)[0]!.one).toBe(1)
      expect(readFileSync(join(dataDir, 'owner.lock'), 'utf8')).toBe(String(process.pid))
    } finally {
      await db.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)

  test('a lock file made a moment ago and still empty is its maker\'s, being written: waited for, never taken over', async () => {
    // writeFileSync makes the file, then writes the pid: between the two, another process reads an
    // empty lock. Taken for a dead owner's, it was removed and a second PGlite opened the same
    // files ("PGlite failed to initialize properly" in CI, with commands started together).
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-lock-written-'))
    const lock = join(dataDir, 'owner.lock')
    writeFileSync(lock, '')
    let opened: Awaited<ReturnType<typeof openDatabase>> | undefined
    const opening = openDatabase({ dataDir }).then((db) => (opened = db))
    try {
      await Bun.sleep(500)
      expect(readFileSync(lock, 'utf8')).toBe('')
      expect(opened).toBeUndefined()
      // Its maker gone without writing (it gave up): the lock is free, and taken.
      rmSync(lock)
      const db = await opening
      expect(db.kind).toBe('embedded-owner')
      expect(readFileSync(lock, 'utf8')).toBe(String(process.pid))
    } finally {
      await (await opening).close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)

  test('a lock file left empty for long (its maker died between making and writing it) is taken over', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-lock-empty-'))
    const lock = join(dataDir, 'owner.lock')
    writeFileSync(lock, '')
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(lock, minuteAgo, minuteAgo)
    const db = await openDatabase({ dataDir })
    try {
      expect(db.kind).toBe('embedded-owner')
      expect(readFileSync(lock, 'utf8')).toBe(String(process.pid))
    } finally {
      await db.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
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

describe('a new embedded database', () => {
  const ROOT = join(import.meta.dir, '../..')
  const linux = process.platform === 'linux'
  if (!linux) console.warn('embedded.test.ts: the peak-memory test skipped: it reads /proc (Linux only)')

  test.skipIf(!linux)("is made in a process of its own: the opening process's peak memory stays far below initdb's", async () => {
    // initdb takes 700-1,000 MB in WebAssembly; the process that opens a new database must not hold it.
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-embedded-new-'))
    const script = [
      `import { readFileSync } from 'node:fs'`,
      `import { openDatabase } from ${JSON.stringify(join(ROOT, 'server/src/store/driver/db.ts'))}`,
      `const db = await openDatabase({ dataDir: ${JSON.stringify(dataDir)} })`,
      `const [row] = await db.sql\`SELECT count(*)::int AS n FROM pg_database\``,
      `await db.close()`,
      `console.log(JSON.stringify({ kind: db.kind, fresh: db.freshEmbedded, databases: row.n, peakKb: Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) }))`,
    ].join('\n')
    try {
      const proc = Bun.spawn([process.execPath, '-e', script], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
      expect(code, err).toBe(0)
      const report = JSON.parse(out.trim().split('\n').at(-1)!)
      expect(report).toMatchObject({ kind: 'embedded-owner', fresh: true })
      expect(report.databases).toBeGreaterThan(0)
      // Measured: about 170 MB when initdb runs in its own process, 930 MB when it ran in this one.
      expect(report.peakKb).toBeLessThan(450 * 1024)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)

  /** A data directory holding one file that an earlier start (or someone) left, removed afterwards. */
  async function inDataDirWith(file: string, text: string, fn: (dataDir: string) => Promise<void>) {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-embedded-left-'))
    mkdirSync(join(dataDir, dirname(file)), { recursive: true })
    writeFileSync(join(dataDir, file), text)
    try {
      await fn(dataDir)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }

  test('files half made by a first start that was killed are made again, not opened', async () => {
    // What a killed first start leaves: the staging directory, never the database's own.
    await inDataDirWith('pgdata.new/PG_VERSION', '15\n', async (dataDir) => {
      const db = await openDatabase({ dataDir })
      try {
        expect(db.kind).toBe('embedded-owner')
        expect(db.freshEmbedded).toBe(true)
        expect((await db.sql`SELECT 1 AS one`)[0]!.one).toBe(1)
        expect(existsSync(join(dataDir, 'pgdata.new'))).toBe(false)
        expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true)
      } finally {
        await db.close()
      }
    })
  }, 120_000)

  test('files where the database should be, but no database, are refused by name and left alone', async () => {
    await inDataDirWith('pgdata/notes.txt', 'not a database', async (dataDir) => {
      await expect(openDatabase({ dataDir })).rejects.toThrow(/pgdata holds files but no database \(no PG_VERSION\): move it away/)
      expect(readFileSync(join(dataDir, 'pgdata', 'notes.txt'), 'utf8')).toBe('not a database')
      // and the lock was let go: a second try is refused the same way, not told another process serves it
      await expect(openDatabase({ dataDir })).rejects.toThrow(/holds files but no database/)
    })
  }, 60_000)
})
