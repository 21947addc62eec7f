import { expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseSecretsKey, secretsKeyId } from '../../server/src/core/secrets.ts'
import { openDatabase } from '../../server/src/store/driver/db.ts'
import { growthIn } from '../cli/run.ts'
import { MIGRATION_FILES, migratedAsOlderRelease } from '../support/older-schema.ts'
import { scratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts'
import { startServerProcess } from '../support/server-process.ts'

/**
 * An operator upgrading from an older release starts the new one on the old database: the start
 * says which migrations it applied and that it sealed the secrets the old version kept in plaintext
 * (with which key, to be backed up from now on). Before, it said nothing of either (seen by the
 * upgrade walk). A later start, with nothing to do, says neither.
 */
const FILES = MIGRATION_FILES
/** The migrations of the first releases: before decided_by (0014) and before secrets were sealed. */
const OLD = FILES.filter((f) => f < '0014')
const NEW = FILES.filter((f) => f >= '0014')

type LogLine = { level: string; msg: string }
const lines = (stdout: string): LogLine[] => stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as LogLine)

/** A database as an older release left it: the migrations before 0014, and a workspace key in plaintext. */
async function olderReleaseDatabase(): Promise<{ scratch: ScratchDatabase; dataDir: string }> {
  const scratch = await scratchDatabase(process.env.DATABASE_URL, 'growth_upgrade_start')
  const dataDir = scratch.dataDir ?? mkdtempSync(join(tmpdir(), 'growth-upgrade-start-'))
  const db = await openDatabase(scratch.databaseUrl ? { databaseUrl: scratch.databaseUrl, dataDir: '', poolMax: 2 } : { dataDir })
  try {
    await migratedAsOlderRelease(db.sql, OLD)
    await db.sql`INSERT INTO workspaces (workspace_id, name, plan, secret_key) VALUES ('ws_01m8upgrade0000000000000000', 'Before sealing', 'growth', 'plaintext-workspace-key')`
  } finally {
    await db.close()
  }
  return { scratch, dataDir }
}

const KEY_ID = secretsKeyId(parseSecretsKey(process.env.GROWTH_SECRETS_KEY!)!)
const SEALED = `Sealed 1 secret an older version kept in plaintext (webhook signing secrets, workspace keys) with secrets key ${KEY_ID} (from GROWTH_SECRETS_KEY)`

test('a start on a database of an older release says which migrations it applied and that it sealed its plaintext secrets, with which key', async () => {
  const { scratch, dataDir } = await olderReleaseDatabase()
  try {
    const env = { DATABASE_URL: scratch.databaseUrl ?? '', DATA_DIR: dataDir, LOG_FORMAT: 'json', LOG_LEVEL: 'info' }
    const first = await startServerProcess(env)
    first.proc.kill('SIGTERM')
    expect(await first.proc.exited).toBe(0)
    const said = lines(first.stdout())
    const migrated = said.find((l) => l.msg.startsWith('Migrated the database'))
    expect(migrated).toEqual(
      expect.objectContaining({
        level: 'info',
        msg: `Migrated the database: applied ${NEW.length} migrations (${NEW.join(', ')}); ${OLD.length} applied before.`,
      }),
    )
    const sealed = said.find((l) => l.msg.startsWith('Sealed'))
    expect(sealed?.level).toBe('warn')
    expect(sealed?.msg).toContain(SEALED)
    expect(sealed?.msg).toContain('back it up beside the database')
    // Said before the banner: a start that stops on the way still said what it changed.
    expect(said.findIndex((l) => l === migrated)).toBeLessThan(said.findIndex((l) => l.msg.startsWith('Growth Automation Service listening')))

    const again = await startServerProcess(env)
    again.proc.kill('SIGTERM')
    expect(await again.proc.exited).toBe(0)
    expect(lines(again.stdout()).filter((l) => /^(Migrated|Sealed)/.test(l.msg))).toEqual([])
  } finally {
    await scratch.drop()
  }
}, 120_000)

test('growth admin migrate on a database of an older release lists the migrations it applied and notes the secrets it sealed', async () => {
  const { scratch, dataDir } = await olderReleaseDatabase()
  try {
    const growth = growthIn(dataDir)
    const env = { DATABASE_URL: scratch.databaseUrl ?? '' }
    const r = await growth(['admin', 'migrate'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`Applied ${NEW.length} migrations to the `)
    for (const name of NEW) expect(r.stdout).toContain(`  ${name}\n`)
    expect(r.stderr).toContain(SEALED)
    const again = await growth(['admin', 'migrate'], env)
    expect(again.stdout).toContain(`is up to date (${FILES.length} migrations already applied)`)
    expect(again.stderr).toBe('')
  } finally {
    await scratch.drop()
  }
}, 120_000)
