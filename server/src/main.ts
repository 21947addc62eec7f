import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { readCommandLine } from './command-line.ts'
import { hostResolves } from './core/host-lookup.ts'
import { ConfigError, type Config, loadConfig } from './config.ts'
import { createLogger, logFormatFor } from './core/log.ts'
import { relyingPartyOf } from './core/relying-party.ts'
import { useSecretsKeyring } from './core/secrets.ts'
import { prepareSecretsAtRest, sealedNotice } from './domain/secrets-at-rest.ts'
import { createDemoWorkspace, type DemoWorkspace } from './demo/index.ts'
import { demoOwner } from './demo/owner.ts'
import { signInLink } from './domain/sign-in.ts'
import { type SecretsKeySource, secretsKeySource } from './secrets-key.ts'
import { explainStartupError } from './startup-errors.ts'
import { openConfiguredDatabase, type RunningServer, startServer } from './server.ts'
import { askOwnerToHandOver, embeddedDatabaseExists, type Database } from './store/driver/db.ts'
import { migrate, migrationsAppliedNotice, migrationsEditedNotice } from './store/driver/migrate.ts'
import { startTracing } from './tracing-setup.ts'
import { metricsHostResolves, metricsListenError } from './metrics-listener.ts'
import { anyWorkspace } from './store/workspaces.ts'
import { databaseShown, shownUrl } from './core/shown-url.ts'
import { printStartBanner, type StartBanner } from './start-banner.ts'

/**
 * `npm start`: migrate, seed a demo workspace on the first start of an empty embedded database,
 * serve, and print how to try it. An embedded database that does not exist yet is created, migrated
 * and seeded by this same script in a process of its own (GROWTH_PREPARE_ONLY=1: it stops before
 * serving), so the server never holds the memory that took: PGlite's WebAssembly memory never
 * shrinks (docs/performance.md, "The embedded default"). SIGTERM/SIGINT: stop accepting, finish
 * requests in flight, close the database; a second signal meanwhile stops at once.
 */
// Its settings are its environment: --help is answered, any other argument refused (not ignored).
const commandLine = readCommandLine(process.argv.slice(2))
if (commandLine && 'help' in commandLine) {
  process.stdout.write(commandLine.help)
  process.exit(0)
}
if (commandLine) {
  console.error(`error: ${commandLine.error}`)
  process.exit(1)
}
// A setting the server cannot start with: one line naming it, no stack trace.
let config: Config
let keySource: SecretsKeySource
try {
  config = loadConfig()
  // The key that seals webhook secrets and workspace keys at rest (docs/operations.md): checked now,
  // taken (its file made, when there is none) once the database is open and of this version.
  keySource = secretsKeySource(process.env, config.dataDir)
} catch (err) {
  if (!(err instanceof ConfigError)) throw err
  console.error(`error: ${err.message}`)
  process.exit(1)
}
const log = createLogger(config.logLevel, { format: config.logFormat, to: 'stdout' })
// A setting that does nothing as the others stand (MAIL_FROM without SMTP_URL, ...): said, not refused.
if (!prepareOnly()) for (const note of config.unused) log.warn(note)
// Traces, when an OTLP endpoint is set (docs/operations.md, "Traces"); flushed at shutdown.
const tracing = prepareOnly() ? null : startTracing(config.tracing, log)
// Whatever stops the start (the database, the port): one line saying what and how to fix it, no stack trace.
let db: Database | undefined
let demo: DemoWorkspace | undefined
/** Whether this start (or the process it prepared the database in) seeded the demo: its credentials are printed in full then only. */
let demoSeededNow = false
let server: RunningServer
let ownerLink: { owner: { id: string; name: string; email: string }; url: string; expiresAt: string } | undefined
const demoFile = join(config.dataDir, 'demo.json')
try {
  // A port already served is refused at once, before the database is opened (and again by listen).
  await hostResolves(config.host)
  await portIsFree(config.host, config.port)
  if (config.metrics) {
    // Else the API's own listener would be found in use, and the line would send the operator looking for another process.
    if (config.metrics.port === config.port && config.port !== 0) throw metricsListenError(config.metrics, { code: 'SAME_AS_PORT' })
    await metricsHostResolves(config.metrics)
    await portIsFree(config.metrics.host, config.metrics.port).catch((err) => Promise.reject(metricsListenError(config.metrics!, err)))
  }
  if (!config.databaseUrl && !prepareOnly() && !embeddedDatabaseExists(config.dataDir)) {
    await prepareInAProcessOfItsOwn()
    // It made the database, so it seeded the demo: this is the first start.
    demoSeededNow = true
  }
  db = await openConfiguredDatabase(config, log)
  if (db.kind === 'embedded-client') {
    const owner = db.ownerPid
    await db.close()
    // A `growth worker` started first has it open, and gives it up when asked: this server takes it
    // over and the workers go on through it. Any other process (a server, a command) is not asked.
    db = owner !== undefined && (await askOwnerToHandOver(config.dataDir, owner)) ? await openConfiguredDatabase(config, log) : undefined
    if (db?.kind !== 'embedded-owner') {
      await db?.close()
      console.error(`error: Another process${owner ? ` (${owner})` : ''} is already serving the embedded database in ${config.dataDir}. Stop it, or set DATA_DIR.`)
      process.exit(1)
    }
    log.info('took the embedded database over from the growth worker that had it open', { workerPid: owner })
  }
  // An upgrade says what it changed: the migrations applied, and secrets an older version kept in plaintext sealed.
  const migration = await migrate(db.sql)
  const migrated = migrationsAppliedNotice(migration)
  if (migrated) log.info(migrated)
  const edited = migrationsEditedNotice(migration)
  if (edited) log.warn(edited)
  // Past every refusal of the start: a refused one leaves no key file behind.
  const secrets = keySource.load()
  useSecretsKeyring(secrets)
  // A key that cannot open the database's secrets stops here; plaintext ones of an older database are sealed.
  const sealed = sealedNotice((await prepareSecretsAtRest(db.sql, secrets)).sealed, secrets)
  if (sealed) log.warn(sealed)

  // The demo's credentials are printed in full once, on the start that seeds it; on the embedded
  // database we keep them beside it (0600) so every later start can say where to read them, and
  // print only their last four characters. Nothing is written when DATABASE_URL is set.
  if (db.kind === 'embedded-owner') {
    if (!(await anyWorkspace(db.sql))) {
      demo = await createDemoWorkspace(db.sql)
      demoSeededNow = true
      writeSecret(demoFile, JSON.stringify(demo, null, 2))
    } else if (existsSync(demoFile)) {
      demo = JSON.parse(readFileSync(demoFile, 'utf8'))
    }
  }
  if (prepareOnly()) {
    await db.close()
    process.exit(0)
  }

  server = await startServer(config, { db, log, secrets })
  // The demo's owner signs in to the console with a link: single use and valid 15 minutes, so every
  // start prints a fresh one (docs/console.md, "People and sign-in").
  if (demo) {
    const owner = await demoOwner(db.sql, demo.workspace.id)
    const consoleUrl = config.consoleUrlSet ? config.consoleUrl : `${server.url}/console`
    ownerLink = { owner, ...(await signInLink(db.sql, { personId: owner.id, consoleUrl })) }
  }
} catch (err) {
  console.error(`error: ${explainStartupError(err, config)}`)
  await db?.close().catch(() => {})
  process.exit(1)
}
/** At an IP address the console has no passkeys (docs/console.md, "Passkeys"): say what to set. */
function passkeysNote(linkUrl: string): string | undefined {
  const url = new URL(linkUrl)
  if (!('unavailable' in relyingPartyOf(url.href))) return undefined
  return `(passkeys need a host name, not ${url.hostname}: start with CONSOLE_URL=http://localhost:${url.port}/console to add one)`
}
const base = `${server.url}/api/v1`
const banner: StartBanner = {
  api: base,
  database: db!.kind === 'server' ? `PostgreSQL server at ${databaseShown(config.databaseUrl!)} (DATABASE_URL)` : `embedded PostgreSQL (PGlite) in ${config.dataDir}`,
  reference: `${base}/reference`,
  ...(server.metricsUrl ? { metrics: server.metricsUrl } : {}),
  ...(config.tracing ? { traces: `${shownUrl(config.tracing.endpoint)} (OTLP ${config.tracing.protocol}), as ${config.tracing.serviceName}` } : {}),
  ...(config.requestLog ? {} : { requestLog: 'off (REQUEST_LOG): the calls this instance serves are not kept in the request log' }),
}
if (demo) {
  const envFile = join(config.dataDir, 'demo.env')
  writeSecret(envFile, demoEnv(base, demo, ownerLink))
  banner.demo = {
    workspace: demo,
    envFile,
    seededNow: demoSeededNow,
    ...(ownerLink ? { owner: { ...ownerLink.owner, url: ownerLink.url, expiresAt: ownerLink.expiresAt, passkeysNote: passkeysNote(ownerLink.url) } } : {}),
  }
}
// A failure no request awaits (postgres.js can throw from a socket callback while the database goes
// away) must not take the server down: log it on one line and keep serving.
process.on('uncaughtException', (error) => log.error('uncaught exception; still serving', { error }))
process.on('unhandledRejection', (error) => log.error('unhandled rejection; still serving', { error }))

// The first SIGTERM or Ctrl-C stops gracefully: no new connections, the requests in flight answered
// (each is bounded by REQUEST_TIMEOUT_MS), the database closed, exit 0. A second one while that runs
// stops at once (exit 128 + the signal's number, as a shell reports it): the way out of a drain an
// operator does not want to wait for.
let shuttingDown = false
async function shutdown(signal: 'SIGTERM' | 'SIGINT') {
  if (shuttingDown) {
    log.warn('second signal: stopping now, without waiting for the requests in flight', { signal })
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15))
  }
  shuttingDown = true
  log.info('shutting down: finishing the requests in flight; send the signal again to stop at once', { signal })
  await server.stop()
  await db!.close()
  await tracing?.shutdown().catch(() => {})
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))

// The banner last: a signal sent as soon as it is read (a supervisor, a test) must find the handlers
// above in place (in Bun, a SIGTERM right after output printed before process.on was ended the process).
printStartBanner(banner, logFormatFor(config.logFormat, 'stdout'))

/**
 * Runs this script with GROWTH_PREPARE_ONLY=1 and waits for it: it creates, migrates and seeds the
 * embedded database, then exits. What stops it has been said on stderr (shared), as here.
 */
async function prepareInAProcessOfItsOwn(): Promise<void> {
  const child = Bun.spawn({
    cmd: [process.execPath, import.meta.path],
    env: { ...process.env, GROWTH_PREPARE_ONLY: '1' },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const code = await child.exited
  if (code !== 0) process.exit(code)
}

/** Resolves when `port` can be bound on `host` (exclusively), rejects with EADDRINUSE and the like when not. */
function portIsFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()))
  })
}

/** A file only its owner can read: it holds credentials. */
function writeSecret(path: string, text: string) {
  writeFileSync(path, text, { mode: 0o600 })
  chmodSync(path, 0o600)
}

/** Shell variables for the README's tour: the base URL of this run, the demo's credentials and its fixture ids. */
function demoEnv(base: string, d: DemoWorkspace, owner: typeof ownerLink): string {
  const f = d.fixtures
  const vars: [string, string][] = [
    ['BASE', base],
    ['TOKEN', d.tokens.live],
    // What the SDK and the CLI read when given no token or base URL.
    ['GROWTH_BASE_URL', base],
    ['GROWTH_TOKEN', d.tokens.live],
    ['TEST_TOKEN', d.tokens.test],
    ['AGENT', d.agents[0]!.credential],
    ['WRITER_AGENT', d.agents[1]!.credential],
    ['WORKSPACE', d.workspace.id],
    ['MISSION', f.missionId],
    ['DECISION', f.decisionId],
    ['ABTEST', f.openAbTestId],
    ['DECIDED_ABTEST', f.decidedAbTestId],
    ['SEND', f.emailSendId],
    ['CAMPAIGN', f.campaignId],
    ['LIST', f.listId],
    ['CONTACT', f.contactEmail],
    ['DO_NOT_CONTACT', f.doNotContactEmail],
    ['EVENT', f.trackedEvent],
    // The console and its owner, for the tour's step in the browser; CONSOLE_URL too, so that
    // `growth admin person link` in this shell links to this server's console, not port 4000's.
    ...(owner
      ? ([['CONSOLE', consoleOf(owner.url)], ['CONSOLE_URL', consoleOf(owner.url)], ['OWNER', owner.owner.id]] as [string, string][])
      : []),
  ]
  return `# The demo workspace of this embedded database, written by npm start (readable only by you).\n${vars.map(([k, v]) => `export ${k}=${JSON.stringify(v)}`).join('\n')}\n`
}

/** The console's base of a sign-in link (`http://host:port/console`). */
function consoleOf(signInUrl: string): string {
  return signInUrl.slice(0, signInUrl.indexOf('/signin/'))
}

/** GROWTH_PREPARE_ONLY=1: this process only creates, migrates and seeds the embedded database. */
function prepareOnly(): boolean {
  return process.env.GROWTH_PREPARE_ONLY === '1'
}
