import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'

/**
 * Secrets at rest: the webhook signing secrets and the workspace keys that sign cursors and params
 * digests are stored sealed with AES-256-GCM under the secrets key (docs/operations.md, "Rotating
 * the secrets key"). A sealed value reads `enc:v1:<key id>:<base64url of iv, ciphertext, tag>`; the
 * key id is derived from the key (an HMAC of it, never the key), so a value names the key that
 * sealed it. Plain values in, plain values out: loading the key is the process's business
 * (server/src/secrets-key.ts), which installs the keyring once at start (`useSecretsKeyring`).
 */

const PREFIX = 'enc:v1:'
const IV_BYTES = 12
const TAG_BYTES = 16
/** Opened values kept per process: far more than the workspaces and endpoints one process serves. */
const CACHE_MAX = 10_000

/** The key id of a 32-byte key: 12 hex characters of an HMAC of it (it does not reveal the key). */
export function secretsKeyId(key: Uint8Array): string {
  return createHmac('sha256', key).update('growth secrets key id').digest('hex').slice(0, 12)
}

/**
 * A key as an operator writes it: 64 hex characters, or the base64 (or base64url) of 32 bytes.
 * Undefined for anything else.
 */
export function parseSecretsKey(text: string): Buffer | undefined {
  const t = text.trim()
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex')
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(t)) {
    const key = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    if (key.length === 32) return key
  }
  return undefined
}

/** Whether a stored value is sealed (anything else is a plaintext value of a database made before sealing). */
export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX)
}

/** The id of the key that sealed `value`, or undefined for a plaintext value. */
export function sealedKeyId(value: string): string | undefined {
  if (!isSealed(value)) return undefined
  return value.slice(PREFIX.length, value.indexOf(':', PREFIX.length))
}

/** The process's key cannot open the database's secrets: one line saying so and how to fix it. */
export class SecretsKeyError extends Error {
  readonly code = 'SECRETS_KEY'
}

/**
 * The key that seals (the current one) and the keys that may still open (the previous ones, during
 * a rotation). Opened values are kept in a bounded map keyed by the sealed text, so a value is
 * decrypted once per process and every later open is one Map lookup.
 */
export class SecretsKeyring {
  readonly keyId: string
  /** Every key this keyring opens with, by id: the current one first. */
  private readonly keys: Map<string, Buffer>
  private readonly opened = new Map<string, string>()

  constructor(
    current: Buffer,
    previous: Buffer[] = [],
    /** Where the current key came from, for messages: "GROWTH_SECRETS_KEY", "the key file /path". */
    readonly source = 'the secrets key',
  ) {
    this.keyId = secretsKeyId(current)
    this.keys = new Map([[this.keyId, current]])
    for (const k of previous) if (!this.keys.has(secretsKeyId(k))) this.keys.set(secretsKeyId(k), k)
  }

  /** Whether this keyring holds the key with this id. */
  has(keyId: string): boolean {
    return this.keys.has(keyId)
  }

  /** The ids of the previous keys it still opens with. */
  get previousKeyIds(): string[] {
    return [...this.keys.keys()].filter((id) => id !== this.keyId)
  }

  /** `plain` sealed under the current key (a fresh random IV each time). */
  seal(plain: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.keyId)!, iv)
    const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
    const sealed = `${PREFIX}${this.keyId}:${body.toString('base64url')}`
    this.remember(sealed, plain)
    return sealed
  }

  /**
   * The plain value of a stored one. A plaintext value (a database made before sealing, not yet
   * sealed at start) is its own plain value. Throws SecretsKeyError when no key of this keyring
   * sealed it or it does not open (altered).
   */
  open(stored: string): string {
    const hit = this.opened.get(stored)
    if (hit !== undefined) return hit
    if (!isSealed(stored)) return stored
    const keyId = sealedKeyId(stored)!
    const key = this.keys.get(keyId)
    if (!key) throw new SecretsKeyError(`A secret in the database was sealed with secrets key ${keyId}, which this process does not have (its key is ${this.keyId}, from ${this.source}). ${FIX}`)
    const body = Buffer.from(stored.slice(PREFIX.length + keyId.length + 1), 'base64url')
    let plain: string
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES))
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
      plain = Buffer.concat([decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString('utf8')
    } catch {
      throw new SecretsKeyError(`A secret in the database sealed with secrets key ${keyId} does not open with that key: it was altered, or another key has the same id.`)
    }
    this.remember(stored, plain)
    return plain
  }

  private remember(sealed: string, plain: string) {
    if (this.opened.size >= CACHE_MAX) this.opened.delete(this.opened.keys().next().value!)
    this.opened.set(sealed, plain)
  }
}

/** How to fix a key that does not open the database's secrets. */
export const FIX = 'Set GROWTH_SECRETS_KEY to the key the other servers use (during a rotation, the old one in GROWTH_SECRETS_KEY_PREVIOUS); docs/operations.md, "Rotating the secrets key".'

let installed: SecretsKeyring | undefined

/** The keyring of this process, loaded once at start by the server, `growth worker` or a `growth admin` command. */
export function useSecretsKeyring(keyring: SecretsKeyring): void {
  installed = keyring
}

/** The keyring installed at start; a process that seals or opens a secret without one is a bug. */
export function secretsKeyring(): SecretsKeyring {
  if (!installed) throw new Error('No secrets key was loaded at start (useSecretsKeyring).')
  return installed
}

/** The installed keyring, if any. */
export function installedSecretsKeyring(): SecretsKeyring | undefined {
  return installed
}
