import { z } from 'zod'
import * as commerce from '../domain/commerce.ts'
import { usage } from '../domain/usage.ts'
import { invalidParameter } from '../errors.ts'
import { paged } from '../http/paging.ts'
import { CUSTOMER_STAGES, Connection, Customer, Revenue, Usage } from '../schemas/commerce.ts'
import { cursorParam, limitParam } from '../schemas/common.ts'
import { defineRead } from './operation.ts'

const dateTime = (what: string) =>
  z.iso
    .datetime({ offset: true })
    .optional()
    .describe(`${what}, an ISO 8601 date-time with a time zone, e.g. 2026-10-01T00:00:00Z.`)

/**
 * A checked date-time parameter as a Date. zod has checked its form (and that the day exists); what
 * remains is the range PostgreSQL stores: years 0001 to 9999 in UTC, which an offset can leave
 * (0001-01-01T00:00:00+01:00 is in year 0).
 */
function toDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined
  const d = new Date(value)
  const year = d.getUTCFullYear()
  if (year < 1 || year > 9999) {
    throw invalidParameter(`Invalid query parameter ${name}: ${JSON.stringify(value)} is outside 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.`)
  }
  return d
}

export const commerceOperations = [
  defineRead({
    method: 'GET',
    path: '/customers',
    operationId: 'listCustomers',
    summary: 'List customers',
    description: 'Buyers newest first, with order count and spend per currency; every stage unless `stage` says one. Paged with meta.nextCursor.',
    tag: 'Contacts',
    auth: { kind: 'workspace', scope: 'read:contacts' },
    query: z.strictObject({
      stage: z.enum(CUSTOMER_STAGES).optional().describe('prospect, first_time, repeat or lapsed; buyers of every stage when omitted.'),
      limit: limitParam(20),
      cursor: cursorParam(),
    }),
    response: { model: { name: 'Customer', schema: Customer }, shape: 'page' },
    handler: ({ sql, caller, query }) =>
      paged({
        caller,
        list: 'customers',
        filter: { stage: query.stage },
        cursor: query.cursor,
        limit: query.limit,
        fetch: (after, limit) => commerce.customersPage(sql, caller.workspaceId, { stage: query.stage, after, limit }),
        positionOf: commerce.customerPosition,
        toItem: commerce.toCustomer,
      }),
  }),

  defineRead({
    method: 'GET',
    path: '/revenue',
    operationId: 'getRevenue',
    summary: 'Revenue per currency',
    description: `Order-ledger revenue per currency over [from, to), with the share traced to marketing. Defaults to the last ${commerce.REVENUE_DEFAULT_DAYS} days; at most ${commerce.REVENUE_MAX_DAYS} days at a time. Nothing is converted or added across currencies.`,
    tag: 'Analytics',
    auth: { kind: 'workspace', scope: 'read:analytics' },
    query: z.strictObject({
      from: dateTime(`Start of the span (inclusive); default ${commerce.REVENUE_DEFAULT_DAYS} days ago`),
      to: dateTime('End of the span (exclusive); default now'),
    }),
    response: { model: { name: 'Revenue', schema: Revenue }, shape: 'item' },
    handler: ({ sql, caller, query }) =>
      commerce.revenue(sql, caller.workspaceId, commerce.revenueSpan({ from: toDate('from', query.from), to: toDate('to', query.to) })),
  }),

  defineRead({
    method: 'GET',
    path: '/usage',
    operationId: 'getUsage',
    summary: 'Allowances and API calls',
    description:
      "Each monthly allowance of the workspace's plan (emails, sms, trackedEvents, agentRequests) and the standing contacts allowance, with what is used and what remains; and the API calls counted this month, with the date counting began.",
    tag: 'Analytics',
    auth: { kind: 'workspace', scope: 'read:analytics' },
    response: { model: { name: 'Usage', schema: Usage }, shape: 'item' },
    handler: ({ sql, caller }) => usage(sql, caller.workspaceId),
  }),

  defineRead({
    method: 'GET',
    path: '/connections',
    operationId: 'listConnections',
    summary: 'List connections',
    description: 'The connected store, ad accounts, email platform and social accounts, each with whether it still delivers and since when it stopped, if it did.',
    tag: 'Analytics',
    auth: { kind: 'workspace', scope: 'read:analytics' },
    response: { model: { name: 'Connection', schema: Connection }, shape: 'list' },
    handler: ({ sql, caller }) => commerce.listConnections(sql, caller.workspaceId),
  }),
]
