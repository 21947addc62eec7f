import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../context.ts'
import { createLogger, embeddedOwner, RETURNING_CLIENT, shownUrl } from '../core.ts'
import { metricsHostResolves, startDeliveryWorkers, startMetricsListener, startTracing } from '../core-running.ts'
import { CliError } from '../errors.ts'

type Options = CommonOptions & { workers?: string }

/**
 * growth worker: webhook delivery workers alone, until SIGTERM or Ctrl-C. Any number of them, in any
 * number of processes (and the servers' own), share the work through the database. On a signal they
 * stop claiming, finish what is out (each send ends within WEBHOOK_TIMEOUT_MS) and give back any
 * lease still held. Its log is the server's (LOG_LEVEL, LOG_FORMAT: JSON lines on stdout unless a terminal).
 */
export function registerWorker(program: Command) {
  program
    .command('worker')
    .description('run webhook delivery workers (settings: the WEBHOOK_* environment variables)')
    .option('--workers <n>', 'delivery workers in this process (default: WEBHOOK_WORKERS, or 1 when that is 0)')
    .addHelpText(
      'after',
      `
Settings (environment variables, as the server reads them):
  DATABASE_URL, DATA_DIR        the servers' database (unset: the embedded one in DATA_DIR, .data)
  GROWTH_SECRETS_KEY            the key the servers use, to open the endpoints' signing secrets
  WEBHOOK_*                     delivery: retry schedule, time-out, circuit breaker, drain rate, address guard
  METRICS_PORT, METRICS_HOST    its own Prometheus metrics (deliveries, backlog, circuits, pool)
  OTEL_EXPORTER_OTLP_ENDPOINT   traces of its deliveries, linked to the requests that caused them
  LOG_LEVEL, LOG_FORMAT         its log on stdout (JSON lines off a terminal); messages for you on stderr

Every WEBHOOK_* setting: docs/webhooks.md; the others: docs/operations.md.
`,
    )
    .action((opts: Options) =>
      withDatabase(
        opts,
        async ({ config, db, sql, out, where, secrets }) => {
          const count = opts.workers === undefined ? Math.max(1, config.webhooks.workers) : /^[1-9]\d?$/.test(opts.workers) ? Number(opts.workers) : Number.NaN
          if (!Number.isInteger(count) || count > 64) throw new CliError(`--workers must be a whole number from 1 to 64 (got ${opts.workers}).`)
          // Logs as the server's: pino on stdout, LOG_FORMAT (JSON lines unless a terminal) and LOG_LEVEL.
          const log = createLogger(config.logLevel, { format: config.logFormat, to: 'stdout' })
          for (const note of config.unused) log.warn(note)
          if (config.metrics) await metricsHostResolves(config.metrics).catch((err: Error) => Promise.reject(new CliError(err.message)))
          // Its own metrics and traces, with the server's settings (docs/operations.md).
          const tracing = startTracing(config.tracing, log)
          const metrics = config.metrics ? listen({ ...config.metrics, sql, log, api: false }) : undefined
          const workers = await startDeliveryWorkers({ sql, log, settings: config.webhooks, listen: db.kind === 'server' ? sql : undefined, secrets }, count)
          // On an embedded database another process has open (npm start's server), say when it stops and when the database is open again.
          let owner = db.kind === 'embedded-client' && db.ownerPid ? watchOwner(config.dataDir, db.ownerPid, (line) => out.note(line)) : undefined
          // The handlers before it says it runs: a signal sent as soon as that is read must find them (in Bun, one
          // sent right after output, before process.once ran, ended the process with 143: test/telemetry/worker-log.test.ts).
          const stopped = new Promise<string>((resolve) => {
            process.once('SIGTERM', () => resolve('SIGTERM'))
            process.once('SIGINT', () => resolve('SIGINT'))
          })
          out.note(`${count} webhook delivery worker${count === 1 ? '' : 's'} running on the ${where}; stop with Ctrl-C or SIGTERM.`)
          log.info('webhook delivery workers started', { workers: count })
          // Opened here (started before the server): a server's start asks for it and is given it; the workers go on through it.
          db.whenAskedToHandOver?.(() => {
            out.note(`A server asked for the embedded database in ${config.dataDir}: handing it over; the workers go on through it once it is open.`)
            log.info('handing the embedded database over to a server that asked for it')
            void db.handOver?.().then(
              () => (owner = watchOwner(config.dataDir, undefined, (line) => out.note(line))),
              (error: unknown) => log.error('handing the embedded database over failed', { error }),
            )
          })
          if (metrics) out.note(`metrics: ${metrics.url}`)
          if (config.tracing) out.note(`traces: ${shownUrl(config.tracing.endpoint)} (OTLP ${config.tracing.protocol}), as ${config.tracing.serviceName}`)
          const signal = await stopped
          out.note(`${signal}: finishing the deliveries out, then stopping.`)
          log.info('shutting down: finishing the deliveries out', { signal })
          owner?.stop()
          await workers.stop()
          await metrics?.stop()
          await tracing?.shutdown().catch(() => {})
        },
        // Claims, successes and failures go in parallel: a few connections to a PostgreSQL server. Its
        // connections are named growth-worker: an embedded database's owner that stops lets them go
        // at once (the workers wait for the next process to open the database), not after 15 s.
        { webhooks: true, observability: true, reportMigration: true, poolMax: 4, createsDatabase: true, name: RETURNING_CLIENT, handsOver: true },
      ),
    )
}

/** The metrics listener, or a refusal saying why it cannot listen (the port taken, the address not this machine's). */
function listen(opts: Parameters<typeof startMetricsListener>[0]) {
  try {
    return startMetricsListener(opts)
  } catch (err) {
    throw new CliError((err as Error).message)
  }
}

const OWNER_LOOK_MS = 1000

/**
 * Watches the process that has the embedded database open, for a worker that uses it through that
 * process's socket: when it stops, the workers' claims fail until another process opens the
 * database (they then go on by themselves); `say` tells the person so, once each way. Given no
 * `pid` (the database just handed over), it says when the next process has it open.
 */
function watchOwner(dataDir: string, pid: number | undefined, say: (line: string) => void): { stop(): void } {
  let owner = pid
  const timer = setInterval(() => {
    const now = embeddedOwner(dataDir)
    if (owner !== undefined && now !== owner) {
      say(`The process that had the embedded database in ${dataDir} open (${owner}) has stopped: the workers wait until another opens it (npm start, or any growth command), then go on.`)
      owner = undefined
    }
    if (owner === undefined && now !== undefined && now !== process.pid) {
      say(`The embedded database in ${dataDir} is open again (process ${now}): the workers go on.`)
      owner = now
    }
  }, OWNER_LOOK_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
