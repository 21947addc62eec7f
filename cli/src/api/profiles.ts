import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { lastFour } from '../../../server/src/core/secret-hint.ts'
import { CliError } from '../errors.ts'

/**
 * Named profiles (`growth login`): a base URL and a token each, in one JSON file only its owner can
 * read, in GROWTH_CONFIG_DIR, else $XDG_CONFIG_HOME/growth, else ~/.config/growth.
 * Which of them a command uses: credentials.ts.
 */
export type Profile = { baseUrl: string; token: string }
type ProfilesFile = { profiles: Record<string, Profile> }

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GROWTH_CONFIG_DIR) return env.GROWTH_CONFIG_DIR
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'growth')
}

function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'profiles.json')
}

function readProfilesFile(path: string): ProfilesFile {
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
  const file = readProfilesFile(path)
  file.profiles[name] = profile
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
  return path
}

/** The saved profiles, by name (none when the file does not exist yet). */
export function readProfiles(env: NodeJS.ProcessEnv = process.env): { path: string; profiles: Record<string, Profile> } {
  const path = profilesPath(env)
  return { path, profiles: readProfilesFile(path).profiles }
}

/** A token as it may be shown: its kind and its last four characters, never the whole of it. */
export function maskToken(token: string): string {
  return lastFour(token)
}
