import { type Config, consoleBase } from './config.ts'
import { createLogger, type Logger } from './core/log.ts'
import { RepeatedFailure } from './core/repeated-failure.ts'
import { installedSecretsKeyring, type SecretsKeyring, useSecretsKeyring } from './core/secrets.ts'
import { prepareSecretsAtRest } from './domain/secrets-at-rest.ts'
import { consoleApp } from './console/app.ts'
import type { ConsoleSessions } from './console/session-port.ts'
import { consoleSessions } from './console-sessions.ts'
import { createApp } from './http/app.ts'
import { operations } from './http/operations.ts'
import { CallCounter } from './http/count.ts'
import { RequestLog } from './http/request-log.ts'
import type { MemoryLimiter } from './http/rate-limit.ts'
import type { CredentialCheck } from './http/credential-batch.ts'
import { purgeRateLimitWindows } from './store/credentials.ts'
import { DecisionBatch } from './store/agent-gateway-batch.ts'
import { decisionRecorder } from './store/agent-gateway-recorder.ts'
import { GatewayViewCache } from './store/agent-gateway-view-cache.ts'
import { openDatabase, openPool, type Database, type Sql, type StatementTrace } from './store/driver/db.ts'
import { purgeExpiredKeys } from './store/idempotency.ts'
import { purgeRequestLog } from './store/request-log.ts'
import { migrate } from './store/driver/migrate.ts'
import { loadSecretsKeyring } from './secrets-key.ts'
import { type MetricsListener, startMetricsListener } from './metrics-listener.ts'
import { activeTraceId } from './core/tracing.ts'
import { type DeliveryWorkers, startDeliveryWorkers } from './workers/webhooks.ts'
import { type MailSender, startMailSender } from './workers/mail.ts'
import { purgeConsoleRows } from './domain/console-housekeeping.ts'

export type RunningServer = {
  url: string
  db: Database
  counter: CallCounter
  /** The webhook delivery workers of this process, when it runs any (WEBHOOK_WORKERS). */
  workers: DeliveryWorkers | undefined
  /** Where the Prometheus metrics are served (METRICS_PORT set), else undefined. */
  metricsUrl: string | undefined
  /** The console's mail sender of this process, when it sends mail (SMTP_URL). */
  mail: MailSender | undefined
  stop(): Promise<void>
}

type ServerOptions = {
  log?: Logger
  /** Use this database instead of opening one from the config (tests share one). */
  db?: Database
  authFailures?: MemoryLimiter
  anonymous?: MemoryLimiter
  /** Records every statement of the counters' own pool, as `db`'s `debug` does for the main one. */
  debug?: StatementTrace
  /**
   * Checks and counts credentials in place of the exact batched statement (a benchmark measures
   * what that statement costs with it; the server itself never sets it).
   */
  credentials?: (exact: CredentialCheck) => CredentialCheck
  /** The secrets key; by default the one this process loaded at start, else GROWTH_SECRETS_KEY or the key file. */
  secrets?: SecretsKeyring
  /**
   * People's sessions and sign-in links, as the console reads them. Until people exist, none: the
   * console finds no session and refuses every link.
   */
  consoleSessions?: ConsoleSessions
}

const HOUSEKEEPING_MS = 10 * 60 * 1000

/** The database the config names, as the server opens it (npm start opens it first, to seed the demo). */
export function openConfiguredDatabase(config: Config, log: Logger): Promise<Database> {
  return openDatabase({
    databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.poolMax, timeouts: config.timeouts,
    onMaintenanceError: (error) => log.warn('embedded database maintenance failed; the next pass tries again', { error }),
  })
}

/** Open the database, migrate, check the secrets key against it, and serve the API; `stop()` drains requests and closes everything. */
export async function startServer(config: Config, opts: ServerOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.logLevel, { format: config.logFormat, to: 'stdout' })
  const db = opts.db ?? (await openConfiguredDatabase(config, log))
  const secrets = opts.secrets ?? installedSecretsKeyring() ?? loadSecretsKeyring(process.env, config.dataDir)
  useSecretsKeyring(secrets)
  await migrate(db.sql)
  // A key that does not open the database's secrets stops the start here, not a request later.
  await prepareSecretsAtRest(db.sql, secrets)

  // On a server, rate-limit and call counters go through their own small pool that does not wait
  // for WAL flushes: losing the last few counts in a crash is acceptable, a slower hot path is not.
  const counterSql: Sql =
    db.kind === 'server'
      ? openPool(config.databaseUrl!, {
          max: Math.max(2, Math.ceil(config.poolMax / 2)),
          synchronousCommit: false,
          name: 'growth-service-counters',
          timeouts: config.timeouts,
          debug: opts.debug,
        })
      : db.sql
  const counter = new CallCounter(counterSql, config.callCountFlushMs)
  // While the database is away every flush fails: said once, then once a minute, and when one works
  // again (core/repeated-failure.ts); the counts and entries wait for the next flush.
  counter.start(new RepeatedFailure(log, { failed: 'writing the call counts failed; they wait for the next flush', stillFailing: 'writing the call counts still failing', worksAgain: 'writing the call counts works again' }))
  // The request log (GET /logs), written in batches beside the counts, through the same pool.
  const requestLog = config.requestLog ? new RequestLog(counterSql, config.callCountFlushMs) : undefined
  requestLog?.start(new RepeatedFailure(log, { failed: 'writing the request log failed; its entries wait for the next flush', stillFailing: 'writing the request log still failing', worksAgain: 'writing the request log works again' }))

  // Webhook delivery workers, woken by this process's own writes and (on a server) by NOTIFY.
  const workers =
    config.webhooks.workers > 0
      ? await startDeliveryWorkers({ sql: db.sql, log, settings: config.webhooks, listen: db.kind === 'server' ? db.sql : undefined, secrets })
      : undefined

  // The agent gateway's decisions: judged against the views kept from the last read, and on a
  // server recorded in batches through the counters' pool, whose commits release the workspace's
  // shared rows before the WAL flush (each decision is answered once flushed).
  const recordDecision = decisionRecorder({
    pool: db.sql,
    views: new GatewayViewCache(),
    batch: counterSql === db.sql ? undefined : new DecisionBatch(counterSql, db.sql),
  })

  // The console's mail sender, started once the server listens (the links need its address).
  let mail: MailSender | undefined
  const afterWrite = () => {
    workers?.wake()
    mail?.wake()
  }
  const app = createApp({
    sql: db.sql, counterSql, counter, services: { recordDecision }, log, authFailures: opts.authFailures, anonymous: opts.anonymous, afterWrite,
    credentials: opts.credentials, requestTimeoutMs: config.timeouts.requestMs, requestLog, trustedProxies: config.trustedProxies,
    // Each request's log line names its trace (tracing on: the server span's, core/tracing.ts).
    traceId: activeTraceId,
  })
  // The console, beside the API under /console (not under /api/v1, not in its OpenAPI document).
  // Its public address: CONSOLE_URL, else this server's own, known once it listens (PORT=0).
  let consoleUrl = config.consoleUrl
  const mailWaker = config.mail ? { wake: () => mail?.wake() } : undefined
  app.use(consoleApp({ sql: db.sql, sessions: opts.consoleSessions ?? consoleSessions(db.sql, { consoleUrl: () => consoleUrl, mail: mailWaker }), log, webhooks: { addresses: config.webhooks.addresses }, consoleUrl: () => consoleUrl, mail: mailWaker, trustedProxies: config.trustedProxies, operationIds: () => operations.map((o) => o.operationId) }))
  // reusePort off (Elysia turns it on): a second server on the same port must fail to start, not share it.
  app.listen({ hostname: config.host, port: config.port, reusePort: false })
  const server = app.server!
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${server.port}`
  if (!config.consoleUrlSet) consoleUrl = consoleBase(config.host, server.port!)
  if (config.mail) mail = startMailSender({ sql: db.sql, log, settings: config.mail, consoleUrl })

  // The Prometheus listener, on a port of its own (docs/operations.md, "Metrics").
  let metrics: MetricsListener | undefined
  if (config.metrics) {
    try {
      metrics = startMetricsListener({ ...config.metrics, sql: db.sql, log })
    } catch (err) {
      await server.stop(true)
      throw err
    }
  }

  const housekeeping = setInterval(() => {
    Promise.all([purgeExpiredKeys(db.sql), purgeRateLimitWindows(counterSql), purgeConsoleRows(db.sql), purgeRequestLog(counterSql)]).catch((error) =>
      log.warn('housekeeping failed', { error }),
    )
  }, HOUSEKEEPING_MS)
  housekeeping.unref?.()

  let stopping: Promise<void> | undefined
  return {
    url,
    db,
    counter,
    workers,
    metricsUrl: metrics?.url,
    mail,
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(housekeeping)
        // Stop accepting; let requests in flight finish; finish or give back the deliveries out.
        await server.stop(false)
        await metrics?.stop()
        await workers?.stop().catch((error) => log.warn('webhook workers did not stop cleanly', { error }))
        await mail?.stop().catch((error) => log.warn('the mail sender did not stop cleanly', { error }))
        await counter.stop().catch((error) => log.warn('final call-count flush failed', { error }))
        await requestLog?.stop().catch((error) => log.warn('final request-log flush failed', { error }))
        if (counterSql !== db.sql) await counterSql.end({ timeout: 5 })
        if (!opts.db) await db.close()
      })()),
  }
}
