import { type Config, ConfigError } from './config.ts'
import { shownUrl } from './core/shown-url.ts'

/** The codes of a PostgreSQL server that cannot be reached or refuses, which explainStartupError words as DATABASE_URL's. */
export const DATABASE_UNREACHABLE = new Set(['ECONNREFUSED', 'CONNECTION_CLOSED', 'ENOTFOUND', 'EAI_AGAIN', 'CONNECT_TIMEOUT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', '28P01', '28000', '3D000', '57P03'])

/**
 * Why the server could not start, as one line saying what is wrong and how to fix it: the database
 * at DATABASE_URL refused, was not found, closed the connection or did not answer; the port is taken
 * by another process; DATA_DIR is open to other users.
 * Anything else is named by its message (never a stack trace: an operator reads this line).
 */
export function explainStartupError(err: unknown, config: Pick<Config, 'host' | 'port' | 'databaseUrl'>): string {
  const line = explain(err, config)
  return line[0]!.toUpperCase() + line.slice(1)
}

function explain(err: unknown, config: Pick<Config, 'host' | 'port' | 'databaseUrl'>): string {
  const e = (err ?? {}) as { code?: string; message?: string; errno?: string }
  const code = String(e.code ?? e.errno ?? '')
  const message = String(e.message ?? err).split('\n')[0]
  // A setting found wrong only when used (the secrets key file made after the database opened) says its own fix.
  if (err instanceof ConfigError) return message
  const where = config.databaseUrl ? `the PostgreSQL server at DATABASE_URL (${shownUrl(config.databaseUrl)})` : 'the embedded database'
  const fixUrl = 'Check DATABASE_URL (postgres://user:password@host:port/database) and that PostgreSQL is running and reachable there.'
  switch (code) {
    case 'SECRETS_KEY':
    case 'METRICS_LISTEN':
    case 'SCHEMA_NEWER':
      return message
    case 'EADDRINUSE':
      return `Port ${config.port} on ${config.host} is already in use (another server is listening there). Stop that process, or set PORT to a free port.`
    case 'EACCES':
      return `Not allowed to listen on port ${config.port} on ${config.host}. Use a port above 1023, or set PORT to one this user may open.`
    case 'HOST_UNRESOLVED':
      return `HOST ${config.host} does not resolve to an address. Set HOST to an address of this machine, e.g. 127.0.0.1 or 0.0.0.0.`
    case 'EADDRNOTAVAIL':
      return `HOST ${config.host} is not an address of this machine. Set HOST to one of its addresses, e.g. 127.0.0.1 or 0.0.0.0.`
    case 'ECONNREFUSED':
      return `Cannot connect to ${where}: connection refused. ${fixUrl}`
    case 'CONNECTION_CLOSED':
      // Something listens there but closed the connection without a word: not PostgreSQL, or a proxy
      // with nothing behind it (PostgreSQL itself answers with an error).
      return `Cannot connect to ${where}: it closed the connection without answering (is that a PostgreSQL server, or a proxy with nothing behind it?). ${fixUrl}`
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot connect to ${where}: its host name does not resolve. ${fixUrl}`
    case 'CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `Cannot connect to ${where}: it did not answer in time. ${fixUrl}`
    case '28P01':
    case '28000':
      return `${where} refused the credentials: ${message}. Check the user and password in DATABASE_URL.`
    case '3D000':
      return `${where} has no such database: ${message}. Create it (CREATE DATABASE ...) or fix the database name in DATABASE_URL.`
    case 'EDATADIR_OPEN':
      // The message names the directory, its mode and the chmod that fixes it (embedded-permissions.ts).
      return `${message}.`
    case '57P03':
      return `${where} is starting up or shutting down: ${message}. Start the server again when the database is up.`
  }
  return `Could not start: ${message}${code ? ` (${code})` : ''}.`
}
