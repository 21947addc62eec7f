import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { consoleTokenWorkspace, hashConsoleToken, mintConsoleToken } from '../../server/src/core/console-tokens.ts'
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, SESSION_TOUCH_MS, sessionEndsAt, sessionState, shouldTouch } from '../../server/src/core/session-expiry.ts'
import { consoleBase } from '../../server/src/config.ts'

const WS = 'ws_01m8c7sy2xd595e86an88n1hf5'

describe('console tokens', () => {
  test('a token carries its workspace and 256 random bits; only its SHA-256 is kept', () => {
    const a = mintConsoleToken('link', WS)
    const b = mintConsoleToken('link', WS)
    expect(a.token).toMatch(/^gsl_01m8c7sy2xd595e86an88n1hf5_[A-Za-z0-9_-]{43}$/)
    expect(a.token).not.toBe(b.token)
    expect(a.hash).toBe(createHash('sha256').update(a.token).digest('hex'))
    expect(hashConsoleToken(a.token)).toBe(a.hash)
    expect(a.hash).not.toContain(a.token.slice(-43))
    expect(consoleTokenWorkspace('link', a.token)).toBe(WS)
  })

  test('a token of one kind is not one of the other; a malformed one names no workspace', () => {
    const s = mintConsoleToken('session', WS)
    expect(s.token).toStartWith('gss_')
    expect(consoleTokenWorkspace('session', s.token)).toBe(WS)
    expect(consoleTokenWorkspace('link', s.token)).toBeNull()
    for (const bad of ['', 'gsl_', `gsl_${WS.slice(3)}_short`, `${s.token}x`, ` ${s.token}`]) expect(consoleTokenWorkspace('session', bad)).toBeNull()
  })
})

describe('session expiry', () => {
  const start = new Date('2030-01-01T00:00:00Z')
  const at = (ms: number) => new Date(start.getTime() + ms)
  const s = (lastSeenMs: number, ended: Date | null = null) => ({ createdAt: start, lastSeenAt: at(lastSeenMs), endedAt: ended })

  test('idle after 12 hours unseen, expired 7 days after sign-in however busy, ended at once', () => {
    expect(sessionState(s(0), at(SESSION_IDLE_MS - 1))).toBe('active')
    expect(sessionState(s(0), at(SESSION_IDLE_MS))).toBe('idle')
    expect(sessionState(s(SESSION_ABSOLUTE_MS - 1000), at(SESSION_ABSOLUTE_MS - 1))).toBe('active')
    expect(sessionState(s(SESSION_ABSOLUTE_MS - 1000), at(SESSION_ABSOLUTE_MS))).toBe('expired')
    expect(sessionState(s(0, at(5)), at(10))).toBe('ended')
  })

  test('it ends at the earlier of its idle and absolute ends', () => {
    expect(sessionEndsAt(s(0))).toEqual(at(SESSION_IDLE_MS))
    expect(sessionEndsAt(s(SESSION_ABSOLUTE_MS - 3600_000))).toEqual(at(SESSION_ABSOLUTE_MS))
  })

  test('its last sight is written at most once a minute', () => {
    expect(SESSION_TOUCH_MS).toBe(60_000)
    expect(shouldTouch(s(0), at(59_999))).toBe(false)
    expect(shouldTouch(s(0), at(60_000))).toBe(true)
  })
})

test('the console base follows HOST and PORT; a wildcard address is written localhost', () => {
  expect(consoleBase('127.0.0.1', 4000)).toBe('http://127.0.0.1:4000/console')
  expect(consoleBase('0.0.0.0', 80)).toBe('http://localhost:80/console')
  expect(consoleBase('::1', 4000)).toBe('http://[::1]:4000/console')
})
