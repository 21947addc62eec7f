import { z } from 'zod'

/** ISO 8601 UTC with milliseconds, e.g. 2026-11-20T09:30:00.000Z (CONTRACT: Shapes). */
export const Timestamp = z.string().describe('ISO 8601 UTC time with milliseconds, e.g. 2026-11-20T09:30:00.000Z')

export const iso = (d: Date | string) => new Date(d).toISOString()
export const isoOrNull = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null)

export const ErrorCodeSchema = z.enum([
  'invalid_parameter',
  'invalid_body',
  'invalid_request',
  'unauthorized',
  'plan_required',
  'forbidden',
  'not_found',
  'conflict',
  'idempotency_key_reused',
  'rate_limited',
  'internal',
])

export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: ErrorCodeSchema.describe('A stable, machine-readable code.'),
      message: z.string().describe('A sentence naming what was wrong: the field, the scope, the rule or the allowance.'),
    }).describe('What was refused and why.'),
  })
  .describe('Every refusal: the error replaces data and meta.')

export const PageMeta = z
  .object({ nextCursor: z.string().describe('Pass as `cursor` to get the next page.') })
  .describe('Present only when there is another page.')

export const SimulatedWrite = z
  .object({ simulated: z.literal(true).describe('Always true: nothing was recorded.') })
  .describe('A test-token write: every check a live write meets passed, and nothing was recorded.')

/** Query `limit`: integer 1..100 (spec: Limits, Page size). */
export const limitParam = (defaultValue: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(defaultValue)
    .describe(`How many items to return, 1 to 100 (default ${defaultValue}).`)

/** An id of the given prefix, e.g. `msn`: a malformed one is refused before any lookup. */
export const idOf = (prefix: string, what: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`), { message: `must be ${what} id (${prefix}_...)` })

/** Money (CONTRACT: Shapes): an integer in the currency's minor unit and an ISO 4217 code. */
export const Money = z
  .object({
    amountMinor: z.number().int().describe("Integer amount in the currency's minor unit (cents for USD, yen for JPY)."),
    currency: z.string().regex(/^[A-Z]{3}$/).describe('ISO 4217 code in capitals.'),
  })
  .describe('An amount of money in one currency.')

/** A figure spanning currencies: one entry per currency, ordered by code, never added across them. */
export const MoneyList = z.array(Money).describe('One entry per currency, ordered by currency code; never converted or added across currencies.')

/** Query `cursor`: the meta.nextCursor of the previous page (signed; see http/cursor.ts). */
export const cursorParam = () => z.string().min(1).optional().describe('The meta.nextCursor of the previous page.')

/** An email address as a person types it: trimmed, at most 254 characters, well formed. */
export const Email = z.string().trim().max(254).pipe(z.email())
