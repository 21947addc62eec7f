import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { CliError } from '../errors.ts'

/**
 * The secret of `growth mcp --http`: every request must carry `Authorization: Bearer <secret>`, so
 * another local process (or a user of the same machine) cannot use the token `growth mcp` serves.
 * Made for each run and printed once on stderr, or read from a file only its owner can read
 * (`--http-secret-file`, to keep one across runs and give it to a client's configuration).
 */

/** A secret shorter than this is refused: it must not be guessable. */
const MIN_SECRET_LENGTH = 32

export type HttpSecret = { value: string; source: 'made for this run' | string }

/** A new secret: `mcp_` and 32 random bytes, base64url. */
export function newSecret(): HttpSecret {
  return { value: `mcp_${randomBytes(32).toString('base64url')}`, source: 'made for this run' }
}

/** The secret in `path` (its first line, trimmed), refused when others may read the file, or when it is short. */
export function readSecretFile(path: string): HttpSecret {
  let mode: number
  let text: string
  try {
    mode = statSync(path).mode
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new CliError(`--http-secret-file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new CliError(`--http-secret-file ${path} may be read by others (mode ${(mode & 0o777).toString(8)}): make it the owner's alone with chmod 600 ${path}`)
  }
  const value = text.split('\n')[0]!.trim()
  if (value.length < MIN_SECRET_LENGTH || /\s/.test(value)) {
    throw new CliError(`--http-secret-file ${path} must hold one secret of at least ${MIN_SECRET_LENGTH} characters without spaces on its first line (e.g. made with: openssl rand -base64 32 > ${path}); it holds ${value.length ? `${value.length} characters` : 'nothing'}`)
  }
  return { value, source: path }
}

const digest = (text: string) => createHash('sha256').update(text).digest()

/** Why a request's Authorization does not carry the secret, or undefined when it does (compared in constant time). */
export function refusedSecret(authorization: string | null, secret: string): string | undefined {
  const how = 'growth mcp --http takes Authorization: Bearer <secret>, with the secret it printed at start (or the one in its --http-secret-file).'
  if (!authorization) return `No Authorization header: ${how}`
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)
  if (!m) return `Authorization is not "Bearer <secret>": ${how}`
  // Digests of equal length, so the comparison takes the same time whatever the secret sent.
  if (!timingSafeEqual(digest(m[1]!), digest(secret))) return `The bearer secret does not match this growth mcp's: ${how} A new run makes a new secret unless --http-secret-file is given.`
  return undefined
}
