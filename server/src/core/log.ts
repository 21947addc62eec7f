/** JSON-lines logger on stderr. Nothing secret is ever passed to it (tokens are never logged). */
export type Logger = {
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

export const LOG_LEVELS = ['info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
const RANK: Record<LogLevel, number> = { info: 20, warn: 30, error: 40, silent: 99 }

export function createLogger(level: LogLevel = 'info'): Logger {
  const min = RANK[level]
  const write = (lvl: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}) => {
    if (RANK[lvl] < min) return
    const out: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg }
    for (const [k, v] of Object.entries(fields)) {
      out[k] = v instanceof Error ? { message: v.message, stack: v.stack } : v
    }
    process.stderr.write(`${JSON.stringify(out)}\n`)
  }
  return {
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  }
}
