import { describe, expect, test } from 'bun:test'
import { decodeTime } from 'ulid'
import { newId } from '../../server/src/core/ids.ts'

describe('newId', () => {
  test('prefix and a 26-character ULID body in lower case, carrying its time', () => {
    const before = Date.now()
    const id = newId('request')
    expect(id).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/)
    const t = decodeTime(id.slice(4).toUpperCase())
    expect(t).toBeGreaterThanOrEqual(before)
    expect(t).toBeLessThanOrEqual(Date.now())
  })

  test('ids made one after another sort in the order they were made, within a millisecond too', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('event'))
    expect(new Set(ids).size).toBe(ids.length)
    for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) throw new Error(`${ids[i - 1]} is not before ${ids[i]}`)
  })

  test('a back-dated id takes its own time, with a random body', () => {
    const at = new Date('2026-01-02T03:04:05.678Z')
    const [a, b] = [newId('decision', at), newId('decision', at.getTime())]
    expect(decodeTime(a.slice(4).toUpperCase())).toBe(at.getTime())
    expect(a.slice(0, 14)).toBe(b.slice(0, 14))
    expect(a).not.toBe(b)
    expect(() => newId('decision', -1)).toThrow()
  })
})
