import { Command } from 'commander'
import pkg from '../../package.json'
import { handleError } from './errors.ts'
import { shareGlobalOptions } from './global-options.ts'
import { flush, writeErr, writeOut } from './output.ts'

type Register = (program: Command) => void

/**
 * The command groups under `growth`, each loaded only when asked for: a command loads its own
 * group's modules, not the others' (the admin commands carry the server's domain and store, growth
 * worker OpenTelemetry and prom-client, growth mcp the MCP SDK), so `growth missions list` starts
 * in a fraction of the time. In the order `growth --help` lists them; `api` is every operation's
 * command (its names come from the OpenAPI document).
 */
const GROUPS: Record<string, () => Promise<Register>> = {
  admin: async () => (await import('./commands/admin/index.ts')).registerAdmin,
  worker: async () => (await import('./commands/worker.ts')).registerWorker,
  login: async () => (await import('./api/login.ts')).registerLogin,
  api: async () => (await import('./api/commands.ts')).registerApiCommands,
  listen: async () => (await import('./api/listen.ts')).registerListen,
  mcp: async () => {
    const [{ registerMcp }, { attachGuard }] = await Promise.all([import('./mcp/command.ts'), import('./mcp/guard/command.ts')])
    return (program) => void attachGuard(registerMcp(program))
  },
  webhooks: async () => {
    const { registerWebhooksVerify } = await import('./commands/webhooks/verify.ts')
    return (program) => registerWebhooksVerify(program.command('webhooks').description('for receivers of webhook deliveries'))
  },
}

/** Flags given before the command word that take a value (global-options.ts): `growth --token T missions list`. */
const VALUE_FLAGS = new Set(['--token', '--base-url', '--profile'])

/** The command word of `argv` (its first argument that is no flag, nor a flag's value), if any. */
function commandWord(argv: string[]): string | undefined {
  const args = argv.slice(2)
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === '--') return args[i + 1]
    if (!arg.startsWith('-')) return arg
    if (VALUE_FLAGS.has(arg)) i++
  }
  return undefined
}

/**
 * The whole command tree, in one place (or, with `only`, that group of GROUPS alone). Each verb
 * lives in its own file under commands/ or api/.
 * With `json`, commander prints no usage error of its own: the top-level handler prints it as the
 * error envelope, as every other refusal under --json is.
 */
export async function buildProgram(opts: { json?: boolean } = {}, only?: string): Promise<Command> {
  const program = new Command('growth')
    .description(
      'The Growth Automation Service from a terminal. Every operation of the API is a command named as its SDK method (growth decisions list, growth agent authorize), through the API with --token/GROWTH_TOKEN or a profile saved by growth login. The admin commands and growth worker act on the database directly (DATABASE_URL, or the embedded database in DATA_DIR), whether or not the server is running.',
    )
    .version(pkg.version, '-v, --version')
    // Settings inherited by every command created below with .command():
    .exitOverride()
    .configureOutput({ writeOut, writeErr, ...(opts.json ? { outputError: () => {} } : {}) })
    .showHelpAfterError(opts.json ? false : '(add --help for usage)')
    .showSuggestionAfterError(true)
    // A command's options are its own: those after a subcommand's name are the subcommand's
    // (growth mcp --token ... beside growth mcp guard --token ...).
    .enablePositionalOptions()

  const names = only && only in GROUPS ? [only] : Object.keys(GROUPS)
  const registers = await Promise.all(names.map((name) => GROUPS[name]!()))
  for (const register of registers) register(program)
  // --token, --base-url, --profile and --json before the command as well as after it.
  shareGlobalOptions(program)

  return program
}

/** Run the CLI and exit with its code: 0 done, 1 refused (usage or operator error), 2 unexpected failure. */
export async function main(argv: string[] = process.argv): Promise<never> {
  const json = argv.includes('--json')
  const program = await programFor(argv, json)
  let code = 0
  if (argv.length <= 2) {
    program.outputHelp()
  } else {
    try {
      await program.parseAsync(argv)
    } catch (err) {
      code = handleError(err, { json })
    }
  }
  await flush()
  // Exit now: an embedded database handle (PGlite) could keep the process alive after closing.
  process.exit(code)
}

/**
 * The program for `argv`: only the group its command word names (a word of no other group is an
 * operation's command, the api group), else, for a word no group has (a typo: commander suggests
 * from every command) or none at all (help, --version), the whole tree.
 */
async function programFor(argv: string[], json: boolean): Promise<Command> {
  const word = commandWord(argv)
  if (word === undefined || word === 'help') return buildProgram({ json })
  const group = word in GROUPS && word !== 'api' ? word : 'api'
  const program = await buildProgram({ json }, group)
  return program.commands.some((c) => c.name() === word || c.aliases().includes(word)) ? program : buildProgram({ json })
}

if (import.meta.main) await main()
