import { expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { isSealed, parseSecretsKey, SecretsKeyError, SecretsKeyring, sealedKeyId, secretsKeyId } from '../../server/src/core/secrets.ts'

/** The sealing itself (core/secrets.ts): what the processes' tests (test/server/secrets-at-rest.test.ts) rest on. */

const key = () => randomBytes(32)

test('a key is 64 hex characters or the base64 (or base64url) of 32 bytes; anything else is not one', () => {
  const k = key()
  for (const text of [k.toString('hex'), k.toString('base64'), k.toString('base64url'), ` ${k.toString('base64')}\n`]) expect(parseSecretsKey(text)).toEqual(k)
  for (const text of ['', 'abc', k.toString('hex').slice(2), randomBytes(31).toString('base64'), randomBytes(33).toString('base64'), `${k.toString('hex')}00`]) {
    expect(parseSecretsKey(text)).toBeUndefined()
  }
})

test('a sealed value names its key by id, not by the key, and differs each time; it opens to the plain value', () => {
  const k = key()
  const ring = new SecretsKeyring(k)
  const a = ring.seal('whsec_abc')
  const b = ring.seal('whsec_abc')
  expect(a).not.toBe(b)
  expect(isSealed(a)).toBe(true)
  expect(sealedKeyId(a)).toBe(secretsKeyId(k))
  expect(a).not.toContain(k.toString('hex').slice(0, 12))
  expect(a).not.toContain('whsec_')
  // a fresh keyring (no cache) opens it too
  expect(new SecretsKeyring(k).open(a)).toBe('whsec_abc')
})

test('a previous key opens what it sealed; a key the keyring lacks, or an altered value, is refused by name', () => {
  const old = key()
  const sealedByOld = new SecretsKeyring(old).seal('workspace key')
  expect(new SecretsKeyring(key(), [old]).open(sealedByOld)).toBe('workspace key')
  const stranger = new SecretsKeyring(key())
  expect(() => stranger.open(sealedByOld)).toThrow(SecretsKeyError)
  expect(() => stranger.open(sealedByOld)).toThrow(`sealed with secrets key ${secretsKeyId(old)}`)
  const body = sealedByOld.slice(sealedByOld.lastIndexOf(':') + 1)
  const altered = `${sealedByOld.slice(0, -body.length)}${body.slice(0, 20)}${body[20] === 'A' ? 'B' : 'A'}${body.slice(21)}`
  expect(() => new SecretsKeyring(old).open(altered)).toThrow('does not open with that key')
})

test('a plaintext value (a database made before sealing) is read as itself', () => {
  expect(new SecretsKeyring(key()).open('whsec_plain')).toBe('whsec_plain')
})
