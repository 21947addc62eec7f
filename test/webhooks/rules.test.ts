import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { parseDuration } from '../../server/src/core/time.ts'
import { nextAttemptAt, retryAfterMs } from '../../server/src/domain/webhook-schedule.ts'
import { newSecret, signatureHeader } from '../../server/src/domain/webhook-signature.ts'

/** The plain rules of delivery, as functions: when a failed delivery goes again, how it is signed, durations. */

describe('the retry schedule', () => {
  const schedule = [5_000, 300_000, 1_800_000]
  test('after attempt n fails, the wait is schedule[n-1] plus up to 20% jitter', () => {
    for (const [n, wait] of schedule.entries()) {
      expect(nextAttemptAt({ attempt: n + 1, schedule, now: 0, random: () => 0 })!.getTime()).toBe(wait)
      expect(nextAttemptAt({ attempt: n + 1, schedule, now: 0, random: () => 0.999999 })!.getTime()).toBeCloseTo(wait * 1.2, -1)
    }
  })
  test('when the schedule has run out, there is no next attempt', () => {
    expect(nextAttemptAt({ attempt: 4, schedule, now: 0 })).toBeNull()
  })
  test('a Retry-After pushes the next attempt later, never earlier', () => {
    expect(nextAttemptAt({ attempt: 1, schedule, now: 0, random: () => 0, retryAfterMs: 60_000 })!.getTime()).toBe(60_000)
    expect(nextAttemptAt({ attempt: 1, schedule, now: 0, random: () => 0, retryAfterMs: 1_000 })!.getTime()).toBe(5_000)
  })
  test('Retry-After is read in seconds or as an HTTP date; anything else is ignored', () => {
    expect(retryAfterMs('120')).toBe(120_000)
    expect(retryAfterMs(new Date(10_000 + 30_000).toUTCString(), 10_000)).toBe(30_000)
    expect(retryAfterMs(new Date(0).toUTCString(), 10_000)).toBe(0)
    for (const bad of [null, undefined, '', 'soon', '-5', '1.5']) expect(retryAfterMs(bad)).toBeUndefined()
  })
})

describe('signatures', () => {
  test('t=<seconds>, then one v1 per secret in the order given (newest first), each the HMAC-SHA256 of "<t>.<body>"', () => {
    const [a, b] = [newSecret(), newSecret()]
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const header = signatureHeader('{"id":"evt_1"}', [a, b], 1_700_000_000)
    const hmac = (s: string) => createHmac('sha256', s).update('1700000000.{"id":"evt_1"}').digest('hex')
    expect(header).toBe(`t=1700000000,v1=${hmac(a)},v1=${hmac(b)}`)
  })
})

describe('durations', () => {
  test('500ms, 5s, 30m, 2h, 5d, and bare milliseconds; nothing else', () => {
    expect([parseDuration('500ms'), parseDuration('5s'), parseDuration('30m'), parseDuration('2h'), parseDuration('5d'), parseDuration('250')]).toEqual([
      500, 5_000, 1_800_000, 7_200_000, 432_000_000, 250,
    ])
    for (const bad of ['', 'soon', '-5s', '5 s', '5w', 's', '1e3']) expect(parseDuration(bad)).toBeUndefined()
  })
})
