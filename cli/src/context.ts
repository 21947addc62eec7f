import {
  type Actor,
  databaseShown,
  DATABASE_UNREACHABLE,
  loadConfig,
  type SecretsKeySource,
  secretsKeySource,
  embeddedDatabaseExists,
  explainStartupError,
  migrate,
  migrationsEditedNotice,
  NewerSchemaError,
  NotFoundError,
  openDatabase,
  prepareSecretsAtRest,
  sealedNotice,
  SecretsKeyError,
  type Database,
  type MigrationResult,
  type SecretsKeyring,
  type Sql,
  useSecretsKeyring,
} from './core.ts'
import { CliError } from './errors.ts'
import { operatorLogin } from './operator-login.ts'
import { createOutput, type Output } from './output.ts'

type Context = {
  config: ReturnType<typeof loadConfig>
  sql: Sql
  db: Database
  out: Output
  /** What the migration done before the command applied (usually nothing). */
  migration: MigrationResult
  /** Which database this is, for people: "embedded database in /path", "PostgreSQL at host/db". */
  where: string
  /** The secrets key, as the server loads it (GROWTH_SECRETS_KEY or the key file), checked against the database. */
  secrets: SecretsKeyring
}

export type CommonOptions = { json?: boolean }

/**
 * Run one operator command against the database: open it the way the server does (DATABASE_URL, or
 * the embedded database in DATA_DIR, through the running server's socket if it owns it), bring the
 * schema up to date, run the command, and always close the database.
 *
 * Only a command that may start a database (`createsDatabase`: admin migrate, admin demo, admin
 * workspace create, and growth worker as the server does) makes a new embedded one where there is
 * none; any other is refused there, naming where it looked and what to set: run from another
 * directory without DATA_DIR, it would otherwise make an empty database and answer "no workspace".
 */
export async function withDatabase(
  opts: CommonOptions,
  command: (ctx: Context) => Promise<void>,
  settings: { reportMigration?: boolean; webhooks?: boolean; console?: boolean; observability?: boolean; poolMax?: number; createsDatabase?: boolean; name?: string; handsOver?: boolean } = { reportMigration: true },
): Promise<void> {
  const out = createOutput({ json: opts.json })
  let config: ReturnType<typeof loadConfig>
  let secrets: SecretsKeyring
  try {
    // Only the settings the command uses: a bad PORT or LOG_LEVEL meant for the server must not stop it.
    const webhookSettings = settings.webhooks ? Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WEBHOOK_'))) : {}
    // The console's links follow CONSOLE_URL, else the server's HOST and PORT.
    const consoleSettings = settings.console ? { CONSOLE_URL: process.env.CONSOLE_URL, HOST: process.env.HOST, PORT: process.env.PORT } : {}
    // Metrics, traces and logs (growth worker): METRICS_*, the OpenTelemetry variables, LOG_LEVEL and LOG_FORMAT.
    const observabilitySettings = settings.observability
      ? Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('METRICS_') || k.startsWith('OTEL_') || k === 'LOG_LEVEL' || k === 'LOG_FORMAT'))
      : {}
    config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR, ...webhookSettings, ...consoleSettings, ...observabilitySettings })
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  if (!config.databaseUrl && !settings.createsDatabase && !embeddedDatabaseExists(config.dataDir)) throw noDatabase(config.dataDir)
  // The same key as the server's: webhook secrets and workspace keys are sealed with it. Checked now,
  // taken (its file made, when there is none) once the database is open and of this version: a
  // refused command leaves no key file behind.
  let keySource: SecretsKeySource
  try {
    keySource = secretsKeySource(process.env, config.dataDir)
  } catch (err) {
    throw new CliError((err as Error).message)
  }
  const setting = config.databaseUrl ? 'the PostgreSQL database at DATABASE_URL' : `the embedded database in ${config.dataDir} (DATA_DIR)`
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: settings.poolMax ?? 2, name: settings.name, handsOver: settings.handsOver }).catch((err) => {
    throw cannotOpen(err, setting, config.databaseUrl)
  })
  const where = describeDatabase(db, config.databaseUrl, config.dataDir)
  let failed = false
  try {
    if (db.freshEmbedded) out.note(`Created a new embedded database in ${config.dataDir} (set DATA_DIR or DATABASE_URL to use another).`)
    // The first statement is where an unreachable server, a missing database or a bad password shows.
    const migration = await migrate(db.sql).catch((err) => {
      if (err instanceof NewerSchemaError) throw new CliError(err.message)
      throw db.kind === 'server' ? cannotOpen(err, setting, config.databaseUrl) : err
    })
    if (settings.reportMigration !== false && migration.applied.length) {
      out.note(`Applied ${plural(migration.applied.length, 'migration')} to the ${where}: ${migration.applied.join(', ')}`)
    }
    // Said by every command, as by the server's start: a migration edited after it was applied here.
    const edited = migrationsEditedNotice(migration)
    if (edited) out.note(`warning: ${edited}`)
    try {
      secrets = keySource.load()
      useSecretsKeyring(secrets)
    } catch (err) {
      throw new CliError((err as Error).message)
    }
    // A key that cannot open the database's secrets is a refusal naming the fix (exit 1).
    const { sealed } = await prepareSecretsAtRest(db.sql, secrets).catch((err) => {
      throw err instanceof SecretsKeyError ? new CliError(err.message) : err
    })
    const sealedNote = sealedNotice(sealed, secrets)
    if (sealedNote) out.note(sealedNote)
    await command({ config, sql: db.sql, db, out, migration, where, secrets })
  } catch (err) {
    failed = true
    throw explainLostOwner(noSuchWorkspace(err, where), db, config.dataDir)
  } finally {
    try {
      await db.close()
    } catch (err) {
      // A failure to close must not hide the command's own error.
      if (!failed) throw err
    }
  }
}

/**
 * Errors of the operator's configuration (a server that does not answer, a database that does not
 * exist, refused credentials, a DATA_DIR that is a file or not writable) are refusals, exit 1, naming
 * the setting to fix. Anything else stays unexpected (exit 2).
 */
const SETUP_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', '3D000', '28P01', '28000', 'EEXIST', 'ENOTDIR', 'EACCES', 'EPERM', 'EDATADIR_OPEN'])

function cannotOpen(err: unknown, setting: string, databaseUrl?: string): unknown {
  const code = (err as { code?: string } | null)?.code
  // The URL (its password hidden), the cause and what to check, as the server's start says them.
  // A PostgreSQL server that cannot be reached or refuses, and a DATA_DIR open to others: said as the server's start says them.
  if ((databaseUrl && code && DATABASE_UNREACHABLE.has(code)) || code === 'EDATADIR_OPEN') return new CliError(explainStartupError(err, { host: '', port: 0, databaseUrl }))
  if (!code || !SETUP_ERRORS.has(code)) return err
  return new CliError(`cannot open ${setting}: ${(err as Error).message}`)
}

/** No embedded database where this command looked, and it is not one that makes one. */
function noDatabase(dataDir: string): CliError {
  const from = process.env.DATA_DIR ? 'DATA_DIR' : 'DATA_DIR is not set: .data in the current directory'
  return new CliError(
    `no embedded database in ${dataDir} (${from}), and this command does not make one. Set DATA_DIR to the server's data directory, or DATABASE_URL to its PostgreSQL database; growth admin migrate, admin demo or admin workspace create makes a new one.`,
  )
}

function describeDatabase(db: Database, databaseUrl: string | undefined, dataDir: string): string {
  if (db.kind === 'server' && databaseUrl) {
    return `PostgreSQL database at ${databaseShown(databaseUrl) ?? 'DATABASE_URL'}`
  }
  // Its owner may be the server, growth worker or another command run at the same moment.
  if (db.kind === 'embedded-client') return `embedded database in ${dataDir} (opened by process ${db.ownerPid})`
  return `embedded database in ${dataDir}`
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** Who is acting, as the audit list records an operator: their login. */
export function operatorAuditActor(): Actor {
  return { kind: 'operator', name: operatorLogin() }
}

/** Who is acting, for the records the domain keeps (e.g. the kill-switch log): `operator:<login>`. */
export function operatorActor(): string {
  return `operator:${operatorLogin()}`
}

/** A workspace id this database does not hold: said with the database looked in, the usual cause being another one. */
function noSuchWorkspace(err: unknown, where: string): unknown {
  if (!(err instanceof NotFoundError) || err.resource !== 'workspace') return err
  return new NotFoundError(
    'workspace',
    err.id,
    `No workspace ${err.id} in the ${where}. Check the id (growth admin workspace list lists them), and that DATABASE_URL (or DATA_DIR) names the server's database.`,
  )
}

/**
 * Another process owned the embedded database and we were its client: if that process (the server,
 * or another growth command run at the same moment) exits, our connection is cut mid-command. Say so
 * plainly instead of a bare socket error. It stays an unexpected failure (exit 2).
 */

function explainLostOwner(err: unknown, db: Database, dataDir: string): unknown {
  const code = (err as { code?: string } | null)?.code
  if (db.kind !== 'embedded-client' || !code || !['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNREFUSED', 'ECONNRESET', 'ENOENT'].includes(code)) {
    return err
  }
  return new Error(
    `lost the connection to the embedded database in ${dataDir}: the process that had it open (${db.ownerPid}: the server, growth worker or another growth command) exited during this command. ` +
      'Check whether the command took effect, then run it again.',
  )
}
