import { describe, expect, test } from 'bun:test'
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import fs from 'node:fs'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { ROOT, runToExit, startServerProcess } from '../support/server-process.ts'

/**
 * The embedded database is for its owner alone (docs/decisions.md, "The embedded database's
 * files"): DATA_DIR and every directory in it 0700, every file 0600, the socket 0600, whatever the
 * umask of the process that starts it; a DATA_DIR open to group or others is refused. Black-box:
 * `npm start`'s script and the CLI as processes, started under the umask given; on the embedded
 * database whatever DATABASE_URL says (EMBEDDED clears it).
 */
const EMBEDDED = { DATABASE_URL: '' }

/** Every entry under `dir` (itself included) whose mode is not the owner's alone: `mode type path`. */
function openEntries(dir: string): string[] {
  const found: string[] = []
  const walk = (path: string) => {
    const stat = lstatSync(path)
    const mode = stat.mode & 0o777
    const type = stat.isDirectory() ? 'dir' : stat.isSocket() ? 'socket' : stat.isFile() ? 'file' : 'other'
    const want = type === 'dir' ? 0o700 : 0o600
    if (mode !== want) found.push(`${mode.toString(8)} ${type} ${relative(dir, path) || '.'}`)
    if (type === 'dir') for (const name of readdirSync(path)) walk(join(path, name))
  }
  walk(dir)
  return found
}

function countFiles(dir: string): number {
  return readdirSync(dir, { recursive: true }).length
}

describe('npm start on the embedded database', () => {
  test(
    'at umask 000, a new DATA_DIR is 0700 and everything in it (every file PGlite wrote, demo.env, demo.json, the socket) is the owner’s alone; at umask 022 a database left open by an earlier version is narrowed',
    async () => {
      const parent = mkdtempSync(join(tmpdir(), 'growth-modes-'))
      const dataDir = join(parent, 'data')
      try {
        const first = await startServerProcess({ ...EMBEDDED, DATA_DIR: dataDir }, 90_000, { umask: '000' })
        try {
          // While it serves: the socket is there, and the demo files were written.
          expect(lstatSync(join(dataDir, '.s.PGSQL.5432')).isSocket()).toBe(true)
          expect(statSync(join(dataDir, 'demo.env')).isFile()).toBe(true)
          expect(countFiles(join(dataDir, 'pgdata'))).toBeGreaterThan(500)
          expect(openEntries(dataDir)).toEqual([])
        } finally {
          first.proc.kill('SIGTERM')
          expect(await first.proc.exited).toBe(0)
        }
        // What it wrote while stopping (the checkpoint) too.
        expect(openEntries(dataDir)).toEqual([])

        // As an earlier version left it: every file of pgdata 0666, every directory 0777.
        const widen = (path: string) => {
          const stat = lstatSync(path)
          chmodSync(path, stat.isDirectory() ? 0o777 : 0o666)
          if (stat.isDirectory()) for (const name of readdirSync(path)) widen(join(path, name))
        }
        widen(join(dataDir, 'pgdata'))
        const second = await startServerProcess({ ...EMBEDDED, DATA_DIR: dataDir }, 90_000, { umask: '022' })
        try {
          expect(openEntries(dataDir)).toEqual([])
        } finally {
          second.proc.kill('SIGTERM')
          expect(await second.proc.exited).toBe(0)
        }
      } finally {
        rmSync(parent, { recursive: true, force: true })
      }
    },
    180_000,
  )

  for (const mode of [0o755, 0o750, 0o701]) {
    test(`a DATA_DIR of mode ${mode.toString(8)} is refused: exit 1, one line naming it, its mode and the fix, nothing written`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'growth-open-data-'))
      writeFileSync(join(dataDir, 'notes.txt'), 'mine')
      chmodSync(dataDir, mode)
      // No key given: the key file it would make is not made by a refused start.
      const keyFile = join(mkdtempSync(join(tmpdir(), 'growth-open-data-key-')), 'secrets.key')
      try {
        const run = await runToExit({ ...EMBEDDED, DATA_DIR: dataDir, GROWTH_SECRETS_KEY: '', GROWTH_SECRETS_KEY_FILE: keyFile })
        expect(run.code).toBe(1)
        expect(run.stdout).toBe('')
        const m = mode.toString(8).padStart(4, '0')
        expect(run.stderr.trim().split('\n')).toEqual([
          `error: DATA_DIR ${dataDir} is open to other users (mode ${m}); the embedded database must be readable by its owner only: run chmod 700 ${dataDir}, then try again.`,
        ])
        expect(readdirSync(dataDir)).toEqual(['notes.txt'])
        expect(statSync(dataDir).mode & 0o777).toBe(mode)
        expect(existsSync(keyFile)).toBe(false)
      } finally {
        rmSync(dataDir, { recursive: true, force: true })
      }
    }, 60_000)
  }
})

describe('the CLI’s operator commands on the embedded database', () => {
  /** `growth ARGS` under a umask, as an operator's shell runs it. */
  async function growthUnder(umask: string, dataDir: string, args: string[], env: Record<string, string> = {}) {
    const proc = Bun.spawn(['sh', '-c', `umask ${umask} && exec "$0" cli/bin/growth.ts "$@"`, process.execPath, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...EMBEDDED, DATA_DIR: dataDir, ...env },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { stdout, stderr, code }
  }

  test('growth admin migrate at umask 000 makes a new DATA_DIR (with its parents) for the owner alone', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'growth-cli-modes-'))
    const dataDir = join(parent, 'nested', 'data')
    try {
      const run = await growthUnder('000', dataDir, ['admin', 'migrate'])
      expect(run.code, run.stderr).toBe(0)
      expect(countFiles(join(dataDir, 'pgdata'))).toBeGreaterThan(500)
      expect(openEntries(dataDir)).toEqual([])
    } finally {
      rmSync(parent, { recursive: true, force: true })
    }
  }, 120_000)

  test('an operator command on a DATA_DIR open to others is refused (exit 1, the fix named), nothing written', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-cli-open-'))
    mkdirSync(join(dataDir, 'kept'))
    chmodSync(dataDir, 0o755)
    // No key given: the key file it would make is not made by a refused command.
    const keyFile = join(mkdtempSync(join(tmpdir(), 'growth-cli-open-key-')), 'secrets.key')
    try {
      const run = await growthUnder('022', dataDir, ['admin', 'workspace', 'create', '--name', 'Refused', '--json'], { GROWTH_SECRETS_KEY: '', GROWTH_SECRETS_KEY_FILE: keyFile })
      expect(run.code).toBe(1)
      expect(run.stdout).toBe('')
      expect(run.stderr).toContain(`DATA_DIR ${dataDir} is open to other users (mode 0755)`)
      expect(run.stderr).toContain(`run chmod 700 ${dataDir}`)
      // For a person: the server's one line, fit for a command as for a start, and nothing said twice.
      const plain = await growthUnder('022', dataDir, ['admin', 'migrate'])
      expect(plain.code).toBe(1)
      expect(plain.stderr.trim().split('\n')).toEqual([
        `error: DATA_DIR ${dataDir} is open to other users (mode 0755); the embedded database must be readable by its owner only: run chmod 700 ${dataDir}, then try again.`,
      ])
      expect(readdirSync(dataDir)).toEqual(['kept'])
      expect(existsSync(keyFile)).toBe(false)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})

describe('in the process that owns an embedded database', () => {
  test('only its own files are narrowed: a chmod elsewhere keeps its bits, and once closed the umask and fs are as before', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'growth-held-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'growth-not-held-'))
    const umask = process.umask()
    const chmod = fs.chmodSync
    const db = await openDatabase({ dataDir })
    try {
      expect(db.kind).toBe('embedded-owner')
      expect(process.umask()).toBe(0o077)
      writeFileSync(join(elsewhere, 'shared.txt'), 'for everyone')
      fs.chmodSync(join(elsewhere, 'shared.txt'), 0o644)
      expect(statSync(join(elsewhere, 'shared.txt')).mode & 0o777).toBe(0o644)
      writeFileSync(join(dataDir, 'pgdata', 'inside'), '')
      fs.chmodSync(join(dataDir, 'pgdata', 'inside'), 0o666)
      expect(statSync(join(dataDir, 'pgdata', 'inside')).mode & 0o777).toBe(0o600)
    } finally {
      await db.close()
    }
    try {
      expect(process.umask()).toBe(umask)
      expect(fs.chmodSync).toBe(chmod)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(elsewhere, { recursive: true, force: true })
    }
  }, 120_000)
})
