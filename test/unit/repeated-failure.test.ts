import { expect, test } from 'bun:test'
import type { Logger } from '../../server/src/core/log.ts'
import { RepeatedFailure } from '../../server/src/core/repeated-failure.ts'

const MESSAGES = { failed: 'x failed', stillFailing: 'x still failing', worksAgain: 'x works again' }

/** A logger that keeps what it is told (the processes' own lines are tested in test/faults/outage-log.test.ts). */
function kept() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = []
  const log: Logger = {
    info: (msg, fields) => void lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => void lines.push({ level: 'error', msg, fields }),
  }
  return { log, lines }
}

test('a run of failures is said once, again once the interval passed with the count so far, and once when it works', async () => {
  const { log, lines } = kept()
  const f = new RepeatedFailure(log, MESSAGES, { worker: 2 }, 100)
  const error = new Error('connection refused')
  f.failed(error)
  f.failed(error)
  f.failed(error)
  expect(lines.map((l) => [l.level, l.msg, l.fields?.failures])).toEqual([['warn', 'x failed', 1]])
  expect(lines[0]!.fields).toMatchObject({ worker: 2, error })
  await Bun.sleep(120)
  f.failed(error)
  f.failed(error)
  expect(lines.map((l) => [l.msg, l.fields?.failures])).toEqual([['x failed', 1], ['x still failing', 4]])
  expect(lines[1]!.fields?.failingMs as number).toBeGreaterThanOrEqual(100)
  f.worked()
  f.worked()
  expect(lines.slice(2).map((l) => [l.level, l.msg, l.fields?.failures, l.fields?.worker])).toEqual([['info', 'x works again', 5, 2]])
  // A new run starts afresh: its first failure is said at once.
  f.failed(error)
  expect(lines.at(-1)).toMatchObject({ level: 'warn', msg: 'x failed', fields: { failures: 1 } })
})

test('working without having failed says nothing', () => {
  const { log, lines } = kept()
  const f = new RepeatedFailure(log, MESSAGES)
  f.worked()
  expect(lines).toEqual([])
})
