import { boundOf, type JsonSchema, resolve } from '../catalogue.ts'

/**
 * A schema of the OpenAPI document as an MCP tool shows it: written out in full (a client resolves
 * no `$ref` into the document), an enum of more than 32 values left to its pattern (the ISO 4217
 * codes: `^[A-Z]{3}$`), bounds that only say "a safe integer" dropped, and "any JSON value" (`{}`)
 * said in so many words. Used for the tools' input schemas (schema.ts) and output schemas
 * (output-schema.ts) alike.
 */

/** An enum longer than this is left to the schema's pattern. */
const LARGE_ENUM = 32
/** Any JSON value, said in so many words (the document's `{}`). */
const ANY_JSON: JsonSchema = {
  type: ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'],
  description: 'Any JSON value: a string, number, boolean, null, object or array.',
}

/** A schema written out in full ($refs inlined), long enums and safe-integer bounds dropped. */
export function clean(schema: JsonSchema): JsonSchema {
  const s = resolve(schema)
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(s)) {
    if (key === 'enum' && Array.isArray(value) && value.length > LARGE_ENUM && typeof s.pattern === 'string') continue
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && boundOf(value) === undefined) continue
    if (key === 'additionalProperties' && value && typeof value === 'object' && Object.keys(value).length === 0) {
      out[key] = ANY_JSON
      continue
    }
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([k, v]) => [k, clean(v)]))
    } else if ((key === 'items' || key === 'additionalProperties' || key === 'propertyNames') && value && typeof value === 'object') {
      out[key] = clean(value as JsonSchema)
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = value.map((v) => clean(v as JsonSchema))
    } else {
      out[key] = value
    }
  }
  return out
}

