import { resolve } from 'node:path'
import { z } from 'zod'
import { LOG_LEVELS, type LogLevel } from './core/log.ts'

/** Environment -> one typed, validated config object. Bad values stop the process with a clear message. */
const Env = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  CALL_COUNT_FLUSH_MS: z.coerce.number().int().min(10).default(1000),
})

export type Config = {
  host: string
  port: number
  databaseUrl: string | undefined
  dataDir: string
  poolMax: number
  logLevel: LogLevel
  callCountFlushMs: number
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''))
  const parsed = Env.safeParse(cleaned)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new Error(`Invalid configuration: ${problems}`)
  }
  const e = parsed.data
  return {
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    dataDir: resolve(e.DATA_DIR),
    poolMax: e.DB_POOL_MAX,
    logLevel: e.LOG_LEVEL,
    callCountFlushMs: e.CALL_COUNT_FLUSH_MS,
  }
}
