import { randomBytes } from 'node:crypto'
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join, relative, resolve, isAbsolute } from 'node:path'
import { ConfigError } from './config.ts'
import { parseSecretsKey, SecretsKeyring } from './core/secrets.ts'

/**
 * The secrets key of this process (docs/decisions.md, "The secrets key"): GROWTH_SECRETS_KEY when
 * set (64 hex characters, or the base64 of 32 bytes); else the key file at GROWTH_SECRETS_KEY_FILE,
 * by default $XDG_CONFIG_HOME/growth/secrets.key (~/.config/growth/secrets.key), made on first use
 * with mode 0600. GROWTH_SECRETS_KEY_PREVIOUS (one key, or several separated by commas) still
 * opens what an old key sealed, during a rotation. Anything wrong is a ConfigError: one line naming
 * the variable or the file.
 */
export function loadSecretsKeyring(env: Record<string, string | undefined>, dataDir: string): SecretsKeyring {
  return secretsKeySource(env, dataDir).load()
}

/** The secrets key, checked; `load()` takes it, making its file when there is none. */
export type SecretsKeySource = { load(): SecretsKeyring }

/**
 * The secrets key checked now and taken later: the variables, the key file's place and a key file
 * that is there are checked at once (a wrong one refused as loadSecretsKeyring refuses it), but a
 * key file that is not there yet is made only by `load()`. A process calls it once it is past every
 * refusal of its start (a DATA_DIR open to others, a database of a newer version), so a refused
 * start leaves no key file behind to be taken later for the key of a database it never opened.
 */
export function secretsKeySource(env: Record<string, string | undefined>, dataDir: string): SecretsKeySource {
  const previous = (env.GROWTH_SECRETS_KEY_PREVIOUS ?? '')
    .split(',')
    .filter((k) => k.trim())
    .map((k) => parsed(k, 'GROWTH_SECRETS_KEY_PREVIOUS'))
  if (env.GROWTH_SECRETS_KEY) {
    const ring = new SecretsKeyring(parsed(env.GROWTH_SECRETS_KEY, 'GROWTH_SECRETS_KEY'), previous, 'GROWTH_SECRETS_KEY')
    return { load: () => ring }
  }
  const file = secretsKeyFile(env)
  if (isInside(file, dataDir)) {
    throw new ConfigError(`GROWTH_SECRETS_KEY_FILE ${file} is inside DATA_DIR (${dataDir}): keep the key apart from the data it protects, so a copy of one is not a copy of both. Choose a path outside DATA_DIR.`)
  }
  const there = existingKeyFile(file)
  if (there) {
    const ring = new SecretsKeyring(there, previous, `the key file ${file}`)
    return { load: () => ring }
  }
  return {
    load() {
      const { key, made } = readOrMakeKeyFile(file)
      // A key made now beside a database sealed with another is the usual mistake (a typo in the path, another HOME): say so where it is named.
      return new SecretsKeyring(key, previous, made ? `the key file ${file}, made just now as there was none` : `the key file ${file}`)
    },
  }
}

/** Where the key file is: GROWTH_SECRETS_KEY_FILE, else $XDG_CONFIG_HOME/growth/secrets.key, else ~/.config/growth/secrets.key. */
function secretsKeyFile(env: Record<string, string | undefined>): string {
  if (env.GROWTH_SECRETS_KEY_FILE) return resolve(env.GROWTH_SECRETS_KEY_FILE)
  const config = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config')
  return join(config, 'growth', 'secrets.key')
}

function parsed(text: string, variable: string): Buffer {
  const key = parseSecretsKey(text)
  if (!key) throw new ConfigError(`${variable} must be a 32-byte key: 64 hex characters, or its base64 (make one with: openssl rand -base64 32).`)
  return key
}

function isInside(file: string, dir: string): boolean {
  const rel = relative(resolve(dir), file)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/**
 * The key in `file`, made first when there is none: written whole to a file of its own (0600) and
 * linked into place, which fails when another process linked its key first; then that key is the
 * one read. So processes starting at once all end up with the first one's key.
 */
function readOrMakeKeyFile(file: string): { key: Buffer; made: boolean } {
  const there = existingKeyFile(file)
  if (there) return { key: there, made: false }
  const dir = dirname(file)
  let made = false
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const draft = join(dir, `.secrets.key.${process.pid}.${randomBytes(6).toString('hex')}`)
    writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
    chmodSync(draft, 0o600)
    try {
      linkSync(draft, file)
      made = true
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err
    } finally {
      unlinkSync(draft)
    }
  } catch (err) {
    throw new ConfigError(`Cannot make the secrets key file ${file}: ${(err as Error).message}. Set GROWTH_SECRETS_KEY, or GROWTH_SECRETS_KEY_FILE to a path this user may write.`)
  }
  return { key: readKeyFile(file), made }
}

/** The key in `file`, or undefined when there is no such file; a file that cannot be read or holds no key is refused. */
function existingKeyFile(file: string): Buffer | undefined {
  try {
    return readKeyFile(file)
  } catch (err) {
    if (err instanceof ConfigError) throw err
    if ((err as { code?: string }).code === 'ENOENT') return undefined
    throw new ConfigError(`Cannot read the secrets key file ${file}: ${(err as Error).message}. Set GROWTH_SECRETS_KEY, or GROWTH_SECRETS_KEY_FILE to a file this user may read.`)
  }
}

function readKeyFile(file: string): Buffer {
  const text = readFileSync(file, 'utf8')
  if ((statSync(file).mode & 0o077) !== 0) {
    throw new ConfigError(`The secrets key file ${file} may be read by other users: run chmod 600 ${file}.`)
  }
  const key = parseSecretsKey(text)
  if (!key) throw new ConfigError(`The secrets key file ${file} does not hold a 32-byte key (64 hex characters, or its base64).`)
  return key
}
