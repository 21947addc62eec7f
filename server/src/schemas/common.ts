import { z } from 'zod'
import { ERROR_CODES } from '../core/errors.ts'
import { ID_PREFIXES, idPattern, type IdKind } from '../core/ids.ts'
import { CURRENCY_CODES, isCurrency } from '../core/money.ts'
import { LINE_BREAKERS } from '../core/line-breakers.ts'

/**
 * The shapes every resource uses. These zod schemas are the API's models: the routes declare them,
 * the domain returns values of their types, and the OpenAPI document is generated from them, so
 * every rule JSON Schema can state is stated here (patterns, formats, bounds) for the SDK, the CLI
 * and agent tools to check a request before sending it.
 */

/** ISO 8601 UTC with milliseconds, e.g. 2026-11-20T09:30:00.000Z (CONTRACT: Shapes). */
export const Timestamp = z.string().describe('ISO 8601 UTC time with milliseconds, e.g. 2026-11-20T09:30:00.000Z')

/** Text PostgreSQL can store: anything but the NUL character (U+0000), which is refused. */
export const TEXT = /^[^\u0000]*$/
const TEXT_MESSAGE = { message: 'must not contain a NUL character (\\u0000)' }

/** The length of a string as JSON Schema counts it: in code points (an emoji is one), not UTF-16 code units. */
export function codePoints(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/**
 * The pattern of text that is `min` to `max` characters long once trimmed, without the characters of
 * the class `refused` (NUL, or every line breaker): surrounding whitespace, then a first and last
 * character that are neither, and anything but `refused` between them. In
 * the document's regular expressions (ECMA-262, unicode) `\s` is exactly the whitespace
 * String.prototype.trim removes and `[^\u0000]` one code point, so it states the server's checks.
 */
function trimmedTextPattern(min: number, max: number, refused: string): string {
  const edge = `[^\\s${refused}]`
  const alternatives = [...(min <= 0 ? [''] : []), ...(min <= 1 && max >= 1 ? [edge] : []), ...(max >= 2 ? [`${edge}[^${refused}]{${Math.max(0, min - 2)},${max - 2}}${edge}`] : [])]
  return `^\\s*(?:${alternatives.join('|')})\\s*$`
}

/** `min` to `max` code points once trimmed, matching `allowed` (one pattern in the document: the class `refused` nowhere). */
const trimmedText = (min: number, max: number, allowed: RegExp, message: { message: string }, refused: string) =>
  z
    .string()
    .trim()
    .superRefine((s, ctx) => {
      const n = codePoints(s)
      if (n < min) ctx.addIssue({ code: 'too_small', origin: 'string', minimum: min, inclusive: true, input: s })
      else if (n > max) ctx.addIssue({ code: 'too_big', origin: 'string', maximum: max, inclusive: true, input: s })
    })
    .regex(allowed, message)
    .meta({ minLength: min, pattern: trimmedTextPattern(min, max, refused) })

/**
 * A string of request text, `min` to `max` characters after trimming, without NUL. The document
 * states the trimming too, in one pattern (" " is no name, and 9 characters with spaces around them
 * are no 10-character hypothesis): zod's .min()/.max() would put the bounds on the untrimmed text
 * there, so the length is checked here instead, in code points as JSON Schema counts, with zod's
 * own issues (and so its messages).
 */
export const text = (min: number, max: number) => trimmedText(min, max, TEXT, TEXT_MESSAGE, '\\u0000')

const LINE = new RegExp(`^[^${LINE_BREAKERS}]*$`)

/**
 * One line of request text (the spec's "one line" summaries): as `text`, and without any character
 * that breaks the line or acts on the terminal it is shown in (LINE_BREAKERS). Surrounding
 * whitespace, a final newline included, is trimmed first, as `text` trims it.
 */
export const line = (min: number, max: number) =>
  trimmedText(min, max, LINE, { message: 'must be one line: no line breaks, tabs or other control characters' }, LINE_BREAKERS)

/** An id of a request, of the given kind: its type prefix is all the API checks (CONTRACT: Shapes). */
export const idOf = (kind: IdKind, what: string) =>
  z.string().regex(idPattern(kind), { message: `must be ${what} id (${ID_PREFIXES[kind]}_...)` })

/** An email address as a person types it: trimmed, at most 254 characters, well formed. */
/**
 * An integer query parameter: plain decimal digits only, without sign, spaces or leading zeros
 * (`0x10`, `0b11`, `0o7`, `1e1`, `5.0`, `+5`, ` 5` and `05` are refused, where z.coerce.number()
 * would read them as numbers), within bounds. Every integer query parameter is declared with it,
 * so a malformed one is 400 invalid_parameter naming it.
 */
export const queryInteger = (min: number, max: number, fallback?: number) => {
  const digits = z.string().regex(/^(0|[1-9][0-9]*)$/, { message: 'must be a whole number written in decimal digits, without sign or leading zeros' })
  // The bounds before int(): a number past 2^53 fails both, and the first failure is the one told ("at most 100", not "at most 9007199254740991").
  return (fallback === undefined ? digits : digits.default(String(fallback))).transform(Number).pipe(z.number().min(min).max(max).int())
}

export const Email = z.string().trim().max(254).email()

/**
 * An ISO 4217 currency code in capitals that the runtime knows (USD, EUR, JPY, KWD, ...). The
 * document lists them as an enum (the refine alone would not show in it), so a client can check a
 * code before sending it; the regex and refine keep the server's messages.
 */
export const Currency = z
  .string()
  .regex(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 currency code in capitals, e.g. USD' })
  .refine(isCurrency, { message: 'is not an ISO 4217 currency code' })
  .meta({ enum: CURRENCY_CODES })
  .describe('ISO 4217 code in capitals, e.g. USD.')

/** Money (CONTRACT: Shapes): an integer in the currency's minor unit and an ISO 4217 code. */
export const Money = z
  .object({
    amountMinor: z.number().int().describe("Integer amount in the currency's minor unit (cents for USD, yen for JPY)."),
    currency: z.string().regex(/^[A-Z]{3}$/).describe('ISO 4217 code in capitals.'),
  })
  .describe('An amount of money in one currency.')

/** A figure spanning currencies: one entry per currency, ordered by code, never added across them. */
export const MoneyList = z.array(Money).describe('One entry per currency, ordered by currency code; never converted or added across currencies.')

export const ErrorEnvelope = z
  .object({
    error: z
      .object({
        code: z.enum(ERROR_CODES).describe('A stable, machine-readable code (the table in the API description).'),
        message: z.string().describe('A sentence naming what was wrong: the field, the scope, the rule or the allowance.'),
        requestId: z.string().describe('The id of this request (also in the X-Request-Id header), to trace it in logs and with support.'),
      })
      .describe('What was refused and why.'),
  })
  .describe('Every refusal: the error replaces data and meta.')

export const PageMeta = z
  .object({ nextCursor: z.string().describe('Pass as the paging parameter of the next request to get the next page.') })
  .describe('Present only when there is something to say: another page, or (for events) where to resume.')

export const SimulatedWrite = z
  .object({ simulated: z.literal(true).describe('Always true: nothing was recorded.') })
  .describe('A test-token write: every check a live write meets passed, and nothing was recorded.')
