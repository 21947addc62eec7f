/**
 * What the server makes of its command line: it takes no arguments, its settings being environment
 * variables (README.md, "Configuration"). `--help` is answered with the main ones; any other argument
 * is refused, naming the variable a flag such as `--port 5000` stands for, rather than ignored while
 * the server starts with its defaults (a `--port` that did nothing was found only by the port it took).
 */
import { SETTING_NAMES } from './config.ts'

type CommandLine = { help: string } | { error: string } | null

const HELP = `Usage: npm start   (or: bun server/src/main.ts)

The Growth Automation Service's API server. It takes no arguments: every setting is an
environment variable, e.g. PORT=4001 DATABASE_URL=postgres://user@db.internal:5432/growth npm start

  HOST, PORT                    where it listens (default 127.0.0.1, 4000)
  DATABASE_URL                  a PostgreSQL server; unset: the embedded database in DATA_DIR
  DATA_DIR                      the embedded database's directory (default .data)
  METRICS_PORT, METRICS_HOST    serve Prometheus metrics on a port of their own (default off)
  OTEL_EXPORTER_OTLP_ENDPOINT   send OpenTelemetry traces over OTLP/HTTP (default off)
  LOG_LEVEL, LOG_FORMAT         info; JSON lines off a terminal, readable lines on one
  GROWTH_SECRETS_KEY            the key sealing secrets at rest; the same for every process of a database

Every setting: README.md, "Configuration", and docs/operations.md.
Workspaces, tokens, agents and migrations are operator commands: growth admin --help.
`

/** `--metrics-port=9464` -> `METRICS_PORT=9464`, `--port 5000` -> `PORT=5000`: for a flag naming a setting only. */
function variableFor(args: string[]): string | undefined {
  const m = /^--?([a-z][a-z0-9-]*)(?:=(.*))?$/i.exec(args[0]!)
  const name = m?.[1]!.replaceAll('-', '_').toUpperCase()
  if (!name || !SETTINGS.includes(name)) return undefined
  const value = m![2] ?? (args[1] !== undefined && !args[1].startsWith('-') ? args[1] : '...')
  return `${name}=${value}`
}

const SETTINGS = [...SETTING_NAMES, 'GROWTH_SECRETS_KEY', 'GROWTH_SECRETS_KEY_FILE', 'GROWTH_SECRETS_KEY_PREVIOUS']

export function readCommandLine(args: string[]): CommandLine {
  if (args.length === 0) return null
  if (args.some((a) => a === '--help' || a === '-h' || a === 'help')) return { help: HELP }
  const variable = variableFor(args)
  const how = variable ? `; set ${variable} instead: ${variable} npm start` : ', as in PORT=5000 npm start'
  return { error: `The server takes no arguments (got ${args.map((a) => JSON.stringify(a)).join(' ')}): its settings are environment variables${how}. Every setting: npm start -- --help.` }
}
