import { resolve } from 'node:path'
import { z } from 'zod'
import { parseTrustedProxies, type TrustedProxies } from './core/client-address.ts'
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './core/log.ts'
import { parseDuration } from './core/time.ts'
import type { DatabaseTimeouts } from './store/driver/db.ts'
import { closestField } from './domain/document-fields.ts'
import { type AddressPolicy, parseAllowList } from './domain/webhook-addresses.ts'

/** A duration setting (`5s`, `30m`, `5d`, or milliseconds), in ms. */
const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      const ms = parseDuration(v)
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: `must be a duration such as 500ms, 5s, 30m, 2h or 5d (got ${JSON.stringify(v)})` })
        return z.NEVER
      }
      return ms
    })

/** A whole number setting within bounds, read from its decimal digits (no 0x10, 1e3 or 5.0). */
const whole = (min: number, max: number, fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((v, ctx) => {
      if (!/^\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max} (got ${JSON.stringify(v)})` })
        return z.NEVER
      }
      return Number(v)
    })

/** A retry schedule setting: the waits after each failed attempt (`5s,5m,30m`), in ms. */
const schedule = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      const waits = v.split(',').map((d) => parseDuration(d))
      if (!v.trim() || waits.some((w) => w === undefined || w <= 0)) {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of durations such as 5s,5m,30m (got ${JSON.stringify(v)})` })
        return z.NEVER
      }
      return waits as number[]
    })

/**
 * A list of `key=value` pairs as the OpenTelemetry variables take them (OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_RESOURCE_ATTRIBUTES): comma-separated, values percent-encoded. The SDK drops an entry it
 * cannot read without a word (a header `Authorization: Bearer ...` written as HTTP writes it never
 * reached the collector, which then refused every export), so such an entry stops the start here.
 * `shown`: whether an entry may be quoted in the message (a header's value may be a secret: only its
 * position and key are named).
 */
const keyValuePairs = (example: string, shown: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined
      const pairs: Record<string, string> = {}
      const entries = v.split(',')
      for (const [i, raw] of entries.entries()) {
        if (!raw.trim()) continue
        const pair = raw.split(';')[0]!
        const at = pair.indexOf('=')
        const key = at > 0 ? pair.slice(0, at).trim() : ''
        const value = at > 0 ? pair.slice(at + 1).trim() : ''
        let decoded: string | undefined
        try {
          decoded = value ? decodeURIComponent(value) : undefined
        } catch {
          decoded = undefined
        }
        if (!key || decoded === undefined) {
          const which = shown ? JSON.stringify(raw.trim()) : key ? `the one for ${JSON.stringify(key)}` : `entry ${i + 1} of ${entries.length}`
          const why = !key ? 'is not key=value' : !value ? 'has no value' : 'has a % that is not percent-encoding (write % as %25)'
          ctx.addIssue({ code: 'custom', message: `must be comma-separated key=value pairs such as ${example} (values percent-encoded: a space is %20); ${which} ${why}` })
          return z.NEVER
        }
        pairs[key] = decoded
      }
      return pairs
    })

/** One of `values`, the refusal quoting what was given (`LOG_LEVEL must be one of ... (got "verbose")`). */
const oneOf = <T extends readonly [string, ...string[]]>(values: T, say: string) => z.enum(values, { error: (issue) => `${say} (got ${JSON.stringify(issue.input)})` })

const httpUrl = (v: string) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol)
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const

/** Environment -> one typed, validated config object. Bad values stop the process with a clear message. */
const Env = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: whole(0, 65535, 4000),
  // postgres:// or postgresql:// only: postgres.js reads any scheme as PostgreSQL, so a mysql:// or
  // http:// typed by mistake would otherwise be used as if it named a PostgreSQL server.
  DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || (URL.canParse(v) && ['postgres:', 'postgresql:'].includes(new URL(v).protocol)), {
      message: 'must be a postgres:// or postgresql:// URL such as postgres://user@host:5432/database',
    }),
  DATA_DIR: z.string().min(1).default('.data'),
  DB_POOL_MAX: whole(1, 100, 10),
  // Time bounds on the database (docs/operations.md). 0 turns the statement time-out off.
  STATEMENT_TIMEOUT_MS: whole(0, 3_600_000, 10_000),
  DB_CONNECT_TIMEOUT_MS: whole(100, 300_000, 2_000),
  REQUEST_TIMEOUT_MS: whole(100, 3_600_000, 15_000),
  LOG_LEVEL: oneOf(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`).default('info'),
  // Unset: readable lines on a terminal, JSON lines otherwise (CONTRACT: Observability).
  LOG_FORMAT: oneOf(LOG_FORMATS, `must be one of ${LOG_FORMATS.join(', ')}`).optional(),
  // The request log (GET /api/v1/logs): on unless turned off here.
  REQUEST_LOG: oneOf(['on', 'off'], 'must be on or off').default('on'),
  CALL_COUNT_FLUSH_MS: whole(10, 3_600_000, 1000),
  // Webhook delivery (CONTRACT: Events and webhooks).
  WEBHOOK_RETRY_SCHEDULE: schedule('5s,5m,30m,2h,5h,10h,10h'),
  WEBHOOK_TIMEOUT_MS: whole(1, 300_000, 15_000),
  WEBHOOK_BREAKER_THRESHOLD: whole(1, 10_000, 10),
  WEBHOOK_BREAKER_COOLDOWN: duration('5m'),
  WEBHOOK_BREAKER_COOLDOWN_MAX: duration('1h'),
  WEBHOOK_DRAIN_RATE: z
    .string()
    .default('10')
    .transform((v, ctx) => {
      const n = Number(v)
      if (!/^\d+(\.\d+)?$/.test(v.trim()) || n < 0.01 || n > 10_000) {
        ctx.addIssue({ code: 'custom', message: `must be a number of deliveries a second from 0.01 to 10000 (got ${JSON.stringify(v)})` })
        return z.NEVER
      }
      return n
    }),
  WEBHOOK_DISABLE_AFTER: duration('5d'),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const policy = parseAllowList(v)
      if ('bad' in policy) {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of CIDR ranges such as 127.0.0.0/8,::1/128 (${JSON.stringify(policy.bad)} is not one)` })
        return z.NEVER
      }
      return policy
    }),
  WEBHOOK_WORKERS: whole(0, 64, 1),
  // Observability (CONTRACT: Observability): the metrics listener, off unless METRICS_PORT is set.
  METRICS_PORT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined
      if (!/^\d+$/.test(v.trim()) || Number(v) > 65535) {
        ctx.addIssue({ code: 'custom', message: `must be a port number from 0 to 65535 (got ${JSON.stringify(v)}); leave it unset for no metrics listener` })
        return z.NEVER
      }
      return Number(v)
    }),
  // Tracing (the standard OpenTelemetry variables): on when an endpoint is set.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional().refine((v) => v === undefined || httpUrl(v), { message: 'must be an http or https URL such as http://127.0.0.1:4318' }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional().refine((v) => v === undefined || httpUrl(v), { message: 'must be an http or https URL such as http://127.0.0.1:4318/v1/traces' }),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(OTLP_PROTOCOLS, { message: `must be ${OTLP_PROTOCOLS.join(' or ')} (grpc is not supported)` }).default('http/protobuf'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z.enum(OTLP_PROTOCOLS, { message: `must be ${OTLP_PROTOCOLS.join(' or ')} (grpc is not supported)` }).optional(),
  OTEL_EXPORTER_OTLP_HEADERS: keyValuePairs('api-key=abc123,x-tenant=ops', false),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValuePairs('api-key=abc123,x-tenant=ops', false),
  OTEL_RESOURCE_ATTRIBUTES: keyValuePairs('deployment.environment=production,service.instance.id=api-1', true),
  OTEL_SERVICE_NAME: z.string().trim().min(1).optional(),
  OTEL_TRACES_SAMPLER: oneOf(SAMPLERS, `must be one of ${SAMPLERS.join(', ')}`).optional(),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^(0|1|0?\.\d+|1\.0*)$/.test(v.trim()), { error: (issue) => `must be a ratio from 0 to 1, such as 0.1 (got ${JSON.stringify(issue.input)})` }),
  METRICS_HOST: z.string().trim().min(1, { message: 'must be an address to listen on, such as 127.0.0.1 or 0.0.0.0' }).default('127.0.0.1'),
  // The reverse proxies whose X-Forwarded-For names the client (core/client-address.ts); none by default.
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const proxies = parseTrustedProxies(v)
      if ('bad' in proxies) {
        ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of the reverse proxies' addresses or CIDR ranges, such as 10.0.0.0/8,192.0.2.7 (${JSON.stringify(proxies.bad)} is neither)` })
        return z.NEVER
      }
      return proxies
    }),
  // The console (CONTRACT: People and the console): the public base of its links, and mail.
  CONSOLE_URL: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined
      const u = URL.canParse(v) ? new URL(v) : undefined
      if (!u || !['http:', 'https:'].includes(u.protocol) || u.search || u.hash || u.username || u.password) {
        ctx.addIssue({ code: 'custom', message: `must be an http or https URL without query, fragment or credentials, such as https://growth.example.com/console (got ${JSON.stringify(v)})` })
        return z.NEVER
      }
      return u.href.replace(/\/+$/, '')
    }),
  SMTP_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || (URL.canParse(v) && ['smtp:', 'smtps:'].includes(new URL(v).protocol) && new URL(v).hostname !== ''), {
      message: 'must be a URL such as smtp://user:pass@host:587 or smtps://user:pass@host:465',
    }),
  MAIL_FROM: z
    .string()
    .optional()
    .refine((v) => v === undefined || /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(v.trim()), {
      message: 'must be an address such as growth@example.com or "Growth <growth@example.com>"',
    }),
  // The console's mail (docs/console.md, "Mail"): retries of a mail the server did not take, and the
  // pace of notices (at most one per person this often; what comes meanwhile waits for the next).
  MAIL_RETRY_SCHEDULE: schedule('10s,1m,5m,15m,1h,3h'),
  MAIL_NOTICE_INTERVAL: duration('1m'),
})
  .refine((e) => !e.SMTP_URL || e.MAIL_FROM, { message: 'must be set when SMTP_URL is (the address mail is sent from)', path: ['MAIL_FROM'] })
  // The first cool-down doubles up to the longest: a first one above it would shrink at the next opening.
  .refine((e) => e.WEBHOOK_BREAKER_COOLDOWN <= e.WEBHOOK_BREAKER_COOLDOWN_MAX, {
    message: 'must not be longer than WEBHOOK_BREAKER_COOLDOWN_MAX (default 1h), the longest cool-down it doubles up to',
    path: ['WEBHOOK_BREAKER_COOLDOWN'],
  })

/** The names of the settings this file reads (the secrets key's are read by secrets-key.ts). */
export const SETTING_NAMES: readonly string[] = Object.keys(Env.shape)

/** How webhooks are delivered; every figure has the contract's default. */
export type WebhookSettings = {
  /** The waits after each failed attempt; its length is the number of retries. */
  retrySchedule: number[]
  timeoutMs: number
  breakerThreshold: number
  breakerCooldownMs: number
  breakerCooldownMaxMs: number
  /** Deliveries per second per endpoint while a backlog drains. */
  drainRate: number
  disableAfterMs: number
  addresses: AddressPolicy
  /** Delivery workers in this process. */
  workers: number
}

/** How the console's mail is sent (docs/console.md, "Mail"). */
export type MailSettings = {
  smtpUrl: string
  from: string
  /** The waits after each failed attempt; its length is the number of retries. */
  retrySchedule: number[]
  /** At most one notice per person this often. */
  noticeIntervalMs: number
}

export type Config = {
  host: string
  port: number
  databaseUrl: string | undefined
  dataDir: string
  poolMax: number
  /** Time bounds on the database and on each request, in ms (docs/operations.md). */
  timeouts: DatabaseTimeouts & { requestMs: number }
  logLevel: LogLevel
  /** undefined: pretty on a terminal, json otherwise. */
  logFormat: LogFormat | undefined
  /** The reverse proxies whose X-Forwarded-For is believed for the client's address (TRUSTED_PROXIES); empty: none. */
  trustedProxies: TrustedProxies
  /** Whether every call of a workspace is kept in the request log (REQUEST_LOG). */
  requestLog: boolean
  /** How often the call counts and the request log are written, in ms. */
  callCountFlushMs: number
  webhooks: WebhookSettings
  /** The console's public base (CONSOLE_URL), no trailing slash; unset: the server's own address + /console. */
  consoleUrl: string
  /** Whether CONSOLE_URL was set (else consoleUrl follows HOST and PORT, see consoleBase). */
  consoleUrlSet: boolean
  /** Mail of the console (SMTP_URL, MAIL_FROM); null: no mail, sign-in links only from the CLI. */
  mail: MailSettings | null
  /**
   * Tracing, when an OTLP endpoint is set: its protocol and the service's name (the exporter and the
   * sampler read the standard variables themselves, checked here); null: off.
   */
  tracing: {
    endpoint: string
    protocol: (typeof OTLP_PROTOCOLS)[number]
    /** OTEL_SERVICE_NAME, else the service.name of OTEL_RESOURCE_ATTRIBUTES, else growth-api. */
    serviceName: string
    /** OTEL_RESOURCE_ATTRIBUTES, as given (deployment.environment, service.instance.id, ...): on every span's resource. */
    resource: Record<string, string>
  } | null
  /** The Prometheus listener (METRICS_PORT, METRICS_HOST); null: none. */
  metrics: { host: string; port: number } | null
  /** Settings that are set but do nothing as the others stand, one sentence each (logged as warns at start). */
  unused: string[]
}

/** The ratio samplers: the only ones that read OTEL_TRACES_SAMPLER_ARG. */
const RATIO_SAMPLERS: readonly string[] = ['traceidratio', 'parentbased_traceidratio']

/**
 * Settings set to no effect, as the others stand: each one sentence naming it, what it waits for and
 * what happens meanwhile. They are not refused (an environment shared by several processes or kept
 * across a feature turned off often holds one), but neither are they passed over in silence: an
 * operator who set MAIL_FROM and sees no mail must find why in the first lines of the log.
 */
function unusedSettings(e: z.infer<typeof Env>, given: Record<string, unknown>): string[] {
  const set = (names: string[]) => names.filter((n) => n in given)
  const notes: string[] = []
  const mail = set(['MAIL_FROM', 'MAIL_RETRY_SCHEDULE', 'MAIL_NOTICE_INTERVAL'])
  if (!e.SMTP_URL && mail.length) notes.push(`${mail.join(', ')} ${mail.length === 1 ? 'is' : 'are'} set but SMTP_URL is not: the console sends no mail (sign-in links come from \`growth admin person link\`).`)
  const otel = set(['OTEL_SERVICE_NAME', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_RESOURCE_ATTRIBUTES'])
  const traced = Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  if (!traced && otel.length) notes.push(`${otel.join(', ')} ${otel.length === 1 ? 'is' : 'are'} set but OTEL_EXPORTER_OTLP_ENDPOINT is not: no traces are made or sent.`)
  if (traced && e.OTEL_TRACES_SAMPLER_ARG !== undefined && !RATIO_SAMPLERS.includes(e.OTEL_TRACES_SAMPLER ?? '')) {
    const sampler = e.OTEL_TRACES_SAMPLER ? `OTEL_TRACES_SAMPLER is ${e.OTEL_TRACES_SAMPLER}` : 'OTEL_TRACES_SAMPLER is not set (parentbased_always_on: every trace)'
    notes.push(`OTEL_TRACES_SAMPLER_ARG is set but ${sampler}: the ratio is read only by traceidratio and parentbased_traceidratio.`)
  }
  if (e.METRICS_PORT === undefined && 'METRICS_HOST' in given) notes.push('METRICS_HOST is set but METRICS_PORT is not: no metrics listener is started.')
  return notes
}

/** Variables of the toolkit read elsewhere: the secrets key (secrets-key.ts), the CLI's credentials and profiles, the first start's own child. */
const READ_ELSEWHERE = ['GROWTH_SECRETS_KEY', 'GROWTH_SECRETS_KEY_FILE', 'GROWTH_SECRETS_KEY_PREVIOUS', 'GROWTH_TOKEN', 'GROWTH_BASE_URL', 'GROWTH_PROFILE', 'GROWTH_CONFIG_DIR', 'GROWTH_PREPARE_ONLY']
/** Prefixes of this server's settings: a variable starting so that is none of them is likely meant for it. */
const OUR_PREFIXES = ['WEBHOOK_', 'METRICS_', 'MAIL_', 'SMTP_', 'DB_', 'GROWTH_', 'REQUEST_', 'STATEMENT_', 'CALL_COUNT_', 'CONSOLE_', 'TRUSTED_']

/**
 * Variables that look meant for this server but are none of its settings (METRIC_PORT, DATABASE_URI,
 * WEBHOOK_WORKER, DB_HOST): each one sentence, with the setting meant when one is close. Said, not
 * refused, as the unused settings are: the environment is shared with everything else the process
 * runs beside. OTEL_* is left alone: the OpenTelemetry SDK reads more of those than this file does.
 */
function unknownSettings(given: Record<string, unknown>): string[] {
  const known = [...SETTING_NAMES, ...READ_ELSEWHERE]
  const notes: string[] = []
  for (const name of Object.keys(given)) {
    if (known.includes(name) || name.startsWith('OTEL_') || name.startsWith('npm_')) continue
    const meant = closestField(name, known)
    if (meant) notes.push(`${name} is not a setting of this server (did you mean ${meant}?): it does nothing.`)
    else if (OUR_PREFIXES.some((p) => name.startsWith(p))) notes.push(`${name} is not a setting of this server: it does nothing (every setting: README.md, "Configuration").`)
  }
  return notes
}

/**
 * The console's base from HOST and PORT: `http://HOST:PORT/console`; a wildcard address (0.0.0.0,
 * ::) is not one a browser can open, so it is written `localhost`.
 */
export function consoleBase(host: string, port: number): string {
  const h = ['0.0.0.0', '::', '[::]', ''].includes(host) ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  return `http://${h}:${port}/console`
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = Env.safeParse(cleaned)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')
    throw new ConfigError(`Invalid configuration: ${problems}.`)
  }
  const e = parsed.data
  return {
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: resolve(e.DATA_DIR),
    poolMax: e.DB_POOL_MAX,
    timeouts: { statementMs: e.STATEMENT_TIMEOUT_MS, connectMs: e.DB_CONNECT_TIMEOUT_MS, requestMs: e.REQUEST_TIMEOUT_MS },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    trustedProxies: e.TRUSTED_PROXIES,
    requestLog: e.REQUEST_LOG === 'on',
    callCountFlushMs: e.CALL_COUNT_FLUSH_MS,
    webhooks: {
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      breakerThreshold: e.WEBHOOK_BREAKER_THRESHOLD,
      breakerCooldownMs: e.WEBHOOK_BREAKER_COOLDOWN,
      breakerCooldownMaxMs: e.WEBHOOK_BREAKER_COOLDOWN_MAX,
      drainRate: e.WEBHOOK_DRAIN_RATE,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER,
      addresses: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      workers: e.WEBHOOK_WORKERS,
    },
    consoleUrl: e.CONSOLE_URL ?? consoleBase(e.HOST, e.PORT),
    consoleUrlSet: e.CONSOLE_URL !== undefined,
    mail: e.SMTP_URL ? { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM!.trim(), retrySchedule: e.MAIL_RETRY_SCHEDULE, noticeIntervalMs: e.MAIL_NOTICE_INTERVAL } : null,
    tracing:
      e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
        ? {
            // Where the spans go, as the exporter reads it: the traces endpoint as given, else the endpoint's /v1/traces.
            endpoint: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${e.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '')}/v1/traces`,
            protocol: e.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? e.OTEL_EXPORTER_OTLP_PROTOCOL,
            serviceName: e.OTEL_SERVICE_NAME ?? e.OTEL_RESOURCE_ATTRIBUTES?.['service.name'] ?? 'growth-api',
            resource: e.OTEL_RESOURCE_ATTRIBUTES ?? {},
          }
        : null,
    metrics: e.METRICS_PORT === undefined ? null : { host: e.METRICS_HOST, port: e.METRICS_PORT },
    unused: [...unknownSettings(cleaned), ...unusedSettings(e, cleaned)],
  }
}

/** A setting the process cannot start with: its message names the variable and what it must be. */
export class ConfigError extends Error {}
