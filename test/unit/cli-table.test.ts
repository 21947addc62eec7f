import { expect, test } from 'bun:test'
import { table } from '../../cli/src/output.ts'

/** The CLI's aligned columns (growth admin webhook attempts and the other operator tables). */
test('a row of one cell among rows of several spans the line: it widens no column', () => {
  const error = '  Not sent: the address 10.0.0.5 of hooks.example.com is private, and WEBHOOK_ALLOW_PRIVATE_NETWORKS does not allow it'
  const lines = table(
    [
      ['AT', 'STATUS', 'DELIVERY'],
      ['2026-11-28T10:00:00Z', '500', 'dlv_1'],
      [error],
    ],
    '',
  )
  expect(lines).toEqual(['AT                    STATUS  DELIVERY', '2026-11-28T10:00:00Z  500     dlv_1', error])
})

test('a table of one column is its cells as they are', () => {
  expect(table([['A'], ['longer']], '> ')).toEqual(['> A', '> longer'])
})
