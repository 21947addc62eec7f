import pino from 'pino'
import pretty from 'pino-pretty'

/**
 * The process's logger, backed by pino: one JSON line per entry (`time`, `level`, `msg`, then the
 * fields), or readable lines for a person (pino-pretty). Nothing secret is ever passed to it: no
 * token, secret, body, email or fact value (test/observability/log-scan.test.ts looks for them);
 * fields named like one are censored besides, should one slip in.
 */
export type Logger = {
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
export const LOG_FORMATS = ['json', 'pretty'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]

type LoggerOptions = {
  /** json: one JSON line per entry; pretty: a readable line. Default: pretty on a terminal, else json. */
  format?: LogFormat
  /** The server logs on stdout (CONTRACT: Observability); the CLI's commands on stderr, beside their messages. */
  to?: 'stdout' | 'stderr'
}

const CENSORED = ['token', 'secret', 'authorization', 'email', 'body', 'facts', 'password']

/**
 * The database (or the network to it) away: postgres.js's and Node's codes for a connection refused,
 * lost or timed out, and PostgreSQL's for a server shutting down or starting (57P01-57P03) and for a
 * connection failure (class 08). Their stacks are the driver's own frames, the same every time: a
 * request that meets one logs its code and message, not a stack a line.
 */
const CONNECTION_LOST = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|CONNECT_TIMEOUT|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|57P0[123]|08...)$/

/** An Error as its message, its code when it has one, and its stack unless it is a connection lost (pino's own serializer reads only the `err` key). */
function plain(fields: Record<string, unknown>): Record<string, unknown> {
  let out = fields
  for (const [k, v] of Object.entries(fields)) {
    if (v instanceof Error) {
      if (out === fields) out = { ...fields }
      const raw = (v as { code?: unknown }).code
      const code = typeof raw === 'string' ? raw : undefined
      const lost = code !== undefined && CONNECTION_LOST.test(code)
      out[k] = { message: v.message, ...(code !== undefined && { code }), ...(!lost && { stack: v.stack }) }
    }
  }
  return out
}

/** The format a logger writing to `to` uses: the one set, else pretty on a terminal and json elsewhere. */
export function logFormatFor(format: LogFormat | undefined, to: LoggerOptions['to']): LogFormat {
  return format ?? ((to === 'stdout' ? process.stdout : process.stderr).isTTY ? 'pretty' : 'json')
}

export function createLogger(level: LogLevel = 'info', opts: LoggerOptions = {}): Logger {
  const fd = opts.to === 'stdout' ? 1 : 2
  const format = logFormatFor(opts.format, opts.to)
  const destination =
    format === 'pretty'
      ? pretty({ destination: fd, sync: true, colorize: Boolean((fd === 1 ? process.stdout : process.stderr).isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true })
      : pino.destination({ dest: fd, sync: true })
  const logger = pino(
    {
      level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...CENSORED, ...CENSORED.map((k) => `*.${k}`)], censor: '[censored]' },
    },
    destination,
  )
  return {
    info: (msg, fields) => (fields ? logger.info(plain(fields), msg) : logger.info(msg)),
    warn: (msg, fields) => (fields ? logger.warn(plain(fields), msg) : logger.warn(msg)),
    error: (msg, fields) => (fields ? logger.error(plain(fields), msg) : logger.error(msg)),
  }
}
