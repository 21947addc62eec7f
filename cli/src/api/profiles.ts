import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_BASE_URL } from '../../../sdk/src/index.ts'
import { lastFour } from '../../../server/src/core/secret-hint.ts'
import { CliError } from '../errors.ts'

/**
 * Named profiles (`growth login`): a base URL and a token each, in one JSON file only its owner can
 * read, in GROWTH_CONFIG_DIR, else $XDG_CONFIG_HOME/growth, else ~/.config/growth.
 *
 * Which credential a command uses: --token / --base-url, then GROWTH_TOKEN / GROWTH_BASE_URL, then
 * the profile named by --profile (or GROWTH_PROFILE), else the profile `default`. Each of token and
 * base URL is taken from the first place that has it.
 */
export type Profile = { baseUrl: string; token: string }
type ProfilesFile = { profiles: Record<string, Profile> }

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GROWTH_CONFIG_DIR) return env.GROWTH_CONFIG_DIR
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'growth')
}

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'profiles.json')
}

function readProfiles(path: string): ProfilesFile {
  if (!existsSync(path)) return { profiles: {} }
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as ProfilesFile
    if (!parsed || typeof parsed.profiles !== 'object') throw new Error('no "profiles" object')
    return parsed
  } catch (err) {
    throw new CliError(`cannot read the profiles in ${path}: ${(err as Error).message}. Fix or remove it, then run growth login again.`)
  }
}

/** Saves a profile; the file (and its folder) readable only by its owner, written whole or not at all. */
export function saveProfile(name: string, profile: Profile, env: NodeJS.ProcessEnv = process.env): string {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new CliError(`--profile must be 1 to 64 letters, digits, dots, dashes or underscores; got ${JSON.stringify(name)}`)
  const dir = configDir(env)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const path = profilesPath(env)
  const file = readProfiles(path)
  file.profiles[name] = profile
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
  return path
}

export type CredentialOptions = { token?: string; baseUrl?: string; profile?: string }

export type Credentials = { token: string; baseUrl: string; source: string }

export function resolveCredentials(opts: CredentialOptions, env: NodeJS.ProcessEnv = process.env): Credentials {
  // An empty variable counts as unset, as a shell's `GROWTH_TOKEN= growth ...` means.
  const envToken = env.GROWTH_TOKEN || undefined
  const envBaseUrl = env.GROWTH_BASE_URL || undefined
  const profileName = opts.profile ?? (env.GROWTH_PROFILE || undefined)
  const needProfile = !(opts.token ?? envToken) || !(opts.baseUrl ?? envBaseUrl)
  let profile: Profile | undefined
  if (needProfile || profileName) {
    const path = profilesPath(env)
    const all = readProfiles(path).profiles
    profile = all[profileName ?? 'default']
    if (profileName && !profile) {
      const names = Object.keys(all)
      throw new CliError(`no profile ${JSON.stringify(profileName)} in ${path}${names.length ? `; there are: ${names.join(', ')}` : ''}. Save one with growth login --profile ${profileName}.`)
    }
  }
  const token = opts.token ?? envToken ?? profile?.token
  if (!token) {
    throw new CliError('no token: pass --token, set GROWTH_TOKEN, or save a profile with growth login (a svc_live_, svc_test_ or svc_agt_ credential)')
  }
  const baseUrl = opts.baseUrl ?? envBaseUrl ?? profile?.baseUrl ?? DEFAULT_BASE_URL
  const source = opts.token ? '--token' : envToken ? 'GROWTH_TOKEN' : `profile ${profileName ?? 'default'}`
  return { token, baseUrl, source }
}

/** A token as it may be shown: its kind and its last four characters, never the whole of it. */
export function maskToken(token: string): string {
  return lastFour(token)
}
