import { DEFAULT_BASE_URL } from '@growth-service/sdk'
import { type Command, Option } from 'commander'
import { CliError } from '../errors.ts'
import { maskToken, type Profile, readProfiles } from './profiles.ts'

/**
 * The credentials option of every command that calls the API: `--token`, `--base-url` and
 * `--profile`, declared once here (addCredentialOptions) and resolved once here (resolveCredentials).
 *
 * Where each of token and base URL comes from, the first place that has it:
 * 1. the flags `--token` / `--base-url`;
 * 2. a profile named by `--profile NAME`: a flag too, so it wins over the environment (its token and
 *    its base URL, which belong together);
 * 3. `GROWTH_TOKEN` / `GROWTH_BASE_URL`;
 * 4. the profile named by `GROWTH_PROFILE`, else the profile `default`;
 * 5. for the base URL only, the SDK's default.
 * The flags may stand before the command too (global-options.ts).
 */
export type CredentialOptions = { token?: string; baseUrl?: string; profile?: string }

export type Credentials = {
  token: string
  baseUrl: string
  /** Where the token came from, for messages: `--token`, `GROWTH_TOKEN`, `profile 'agent'`. */
  source: string
  /** Where the base URL came from: `--base-url`, `GROWTH_BASE_URL`, `profile 'agent'`, `the default`. */
  baseUrlSource: string
}

type Help = Partial<Record<keyof CredentialOptions, string>>

/** The three options, as commands declare them (a command may word a help line its own way). */
export function credentialOptions(help: Help = {}): Option[] {
  return [
    new Option('--token <token>', help.token ?? 'the credential (default: GROWTH_TOKEN, then the profile)'),
    new Option('--base-url <url>', help.baseUrl ?? 'the API, /api/v1 included (default: GROWTH_BASE_URL, then the profile)'),
    new Option('--profile <name>', help.profile ?? 'a profile saved by growth login; named here, it wins over GROWTH_TOKEN and GROWTH_BASE_URL (default: GROWTH_PROFILE, then default)'),
  ]
}

/** Adds the credentials option to a command that calls the API. */
export function addCredentialOptions(cmd: Command, help: Help = {}): Command {
  for (const option of credentialOptions(help)) cmd.addOption(option)
  return cmd
}

export function resolveCredentials(opts: CredentialOptions, env: NodeJS.ProcessEnv = process.env): Credentials {
  // An empty variable counts as unset, as a shell's `GROWTH_TOKEN= growth ...` means.
  const envToken = env.GROWTH_TOKEN || undefined
  const envBaseUrl = env.GROWTH_BASE_URL || undefined
  const explicit = opts.profile !== undefined
  const named = opts.profile ?? (env.GROWTH_PROFILE || undefined)
  const name = named ?? 'default'
  const label = `profile '${name}'`
  let loaded: { path: string; profile: Profile | undefined } | undefined
  const profile = () => {
    if (!loaded) {
      const { path, profiles } = readProfiles(env)
      loaded = { path, profile: profiles[name] }
      if (named && !loaded.profile) {
        const names = Object.keys(profiles)
        throw new CliError(`no profile '${name}' in ${path}${names.length ? `; there are: ${names.join(', ')}` : ''}. Save one with growth login --profile ${name}.`)
      }
    }
    return loaded.profile
  }
  // A profile named (by flag or GROWTH_PROFILE) must exist even when the flags and variables say everything.
  if (named) profile()

  const token = explicit
    ? first([['--token', opts.token], [label, () => profile()?.token]])
    : first([['--token', opts.token], ['GROWTH_TOKEN', envToken], [label, () => profile()?.token]])
  if (!token) {
    throw new CliError(
      `no token: --token was not given, GROWTH_TOKEN is not set, and there is no profile '${name}' in ${loaded?.path ?? readProfiles(env).path}. ` +
        'Pass --token, set GROWTH_TOKEN, or save a profile with growth login (a svc_live_, svc_test_ or svc_agt_ credential).',
    )
  }
  const baseUrl = explicit
    ? first([['--base-url', opts.baseUrl], [label, () => profile()?.baseUrl]])
    : first([['--base-url', opts.baseUrl], ['GROWTH_BASE_URL', envBaseUrl], [label, () => profile()?.baseUrl]])
  return { token: token.value, source: token.from, baseUrl: baseUrl?.value ?? DEFAULT_BASE_URL, baseUrlSource: baseUrl?.from ?? 'the default' }
}

/** The first of the places that has a value, and which place it was. */
function first(places: [string, string | undefined | (() => string | undefined)][]): { value: string; from: string } | undefined {
  for (const [from, value] of places) {
    const v = typeof value === 'function' ? value() : value
    if (v) return { value: v, from }
  }
  return undefined
}

/** "the token from GROWTH_TOKEN (svc_live_…abcd)": which token, and where it came from, never the whole of it. */
export function tokenOf(credentials: Credentials): string {
  return `the token from ${credentials.source} (${maskToken(credentials.token)})`
}

