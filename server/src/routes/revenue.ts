import { z } from 'zod'
import { getRevenue, REVENUE_DEFAULT_DAYS, REVENUE_MAX_DAYS } from '../domain/revenue.ts'
import { Revenue } from '../schemas/revenue.ts'
import { defineItem, model } from './operation.ts'

const dateTime = (what: string) =>
  z.iso.datetime({ offset: true }).optional().describe(`${what}, an ISO 8601 date-time with a time zone, e.g. 2026-10-01T00:00:00Z.`)

export const revenueOperations = [
  defineItem({
    method: 'GET',
    path: '/revenue',
    operationId: 'getRevenue',
    sdk: 'revenue.get',
    summary: 'Revenue per currency',
    description: `Order-ledger revenue per currency over [from, to), with the share traced to marketing. Defaults to the last ${REVENUE_DEFAULT_DAYS} days; at most ${REVENUE_MAX_DAYS} days at a time. Nothing is converted or added across currencies.`,
    tag: 'Analytics',
    auth: { kind: 'workspace', scope: 'read:analytics' },
    query: z.strictObject({
      from: dateTime(`Start of the span (inclusive); default ${REVENUE_DEFAULT_DAYS} days ago`),
      to: dateTime('End of the span (exclusive); default now'),
    }),
    rules: [
      { description: `from is not after to (a to alone earlier than ${REVENUE_DEFAULT_DAYS} days ago is after the defaulted from).`, message: /is after to/ },
      { description: `The span is at most ${REVENUE_MAX_DAYS} days.`, message: /is longer than \d+ days/ },
      { description: 'from and to fall in the years 0001 to 9999 in UTC.', message: /is outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z/ },
    ],
    response: model('Revenue', Revenue),
    example: { query: { from: '2026-09-01T00:00:00Z', to: '2026-10-01T00:00:00Z' } },
    handler: ({ sql, caller, query }) => getRevenue(sql, caller.workspaceId, query),
  }),
]
