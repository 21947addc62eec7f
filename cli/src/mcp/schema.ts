import type { OperationSpec } from '@growth-service/sdk'
import { type CatalogueBody, type CatalogueOperation, type CatalogueParameter, componentSchema, type JsonSchema, operations, resolve } from '../catalogue.ts'
import { clean } from './json-schema.ts'
import { outputSchemaOf } from './output-schema.ts'

export { componentSchema, type JsonSchema }

/**
 * The MCP tools' input schemas, generated from the operation catalogue (catalogue.ts: the OpenAPI
 * document the SDK's methods and the CLI's flags come from, read once); their output schemas are
 * output-schema.ts's, from the same catalogue's success data. A
 * tool's arguments are the operation's query parameters (a read) or its body's members (a write), as
 * one flat object, each with the document's own schema and description. What differs, and why:
 *
 * - every list pages with `cursor` (the API calls it `after` for events and `before` for agent
 *   requests): the `nextCursor` of one answer is the `cursor` of the next call, for every list;
 * - `limit` defaults to 20 (the API's default is up to 500): a tool's answer goes into a model's context;
 * - a body that takes one of several shapes (a oneOf by `kind`) is one object: a member every shape
 *   has alike keeps its schema, a member whose schema differs by kind is an `anyOf` of them, each
 *   labelled with its kind, and `kind` lists every value; the API still checks the combination;
 * - `$ref`s are written out, an enum of more than 32 values is left to its pattern (the 300 or so
 *   ISO 4217 codes: `^[A-Z]{3}$`), and bounds that only say "a safe integer" are dropped;
 * - a member that takes any JSON value (request_permission's `params`: `additionalProperties: {}`)
 *   says so: the JSON types, named, with what the value is for.
 *
 * test/mcp/tools.test.ts compares each tool with the document the server serves.
 */

/** What a list tool returns when given no limit (never more than the API's own default). */
export const TOOL_LIMIT = 20
/** The argument every list tool pages with. */
export const CURSOR = 'cursor'

/** One operation of the catalogue, with its tool's schemas. */
export type DeclaredOperation = CatalogueOperation & {
  inputSchema: JsonSchema
  /** What structuredContent holds, on success or failure (output-schema.ts). */
  outputSchema: JsonSchema
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The values a member takes when it is a string constant or a short enum (a discriminator such as `kind`). */
function constantsOf(s: JsonSchema): string[] | undefined {
  if (s.const !== undefined && typeof s.const === 'string') return [s.const]
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) return s.enum as string[]
  return undefined
}

/** The body's shapes as one object schema: see the file's comment. */
function bodySchema(body: CatalogueBody): { properties: Record<string, JsonSchema>; required: string[] } {
  const variants = body.shapes
  const names = body.fields.map((f) => f.name)
  // The member that tells the shapes apart: a constant (or short enum) in every shape, no value in two.
  const discriminator =
    variants.length > 1
      ? names.find((name) => {
          const values = variants.map((v) => (v.properties?.[name] ? constantsOf(resolve(v.properties[name]!)) : undefined))
          if (values.some((x) => !x)) return false
          const all = values.flat() as string[]
          return new Set(all).size === all.length
        })
      : undefined
  const labelOf = (v: JsonSchema) => (discriminator ? constantsOf(resolve(v.properties![discriminator]!))!.join(' or ') : '')

  const properties: Record<string, JsonSchema> = {}
  for (const field of body.fields) {
    const name = field.name
    const holders = field.holders.map((h) => h.shape)
    const schemas = field.holders.map((h) => clean(h.schema))
    if (schemas.every((s) => same(s, schemas[0]))) {
      properties[name] = schemas[0]!
    } else if (name === discriminator) {
      properties[name] = {
        type: 'string',
        enum: schemas.flatMap((s) => constantsOf(s)!),
        description: holders.map((v, i) => `${labelOf(v)}: ${schemas[i]!.description ?? ''}`.trim()).join(' '),
      }
    } else {
      // A member whose schema depends on the shape: each one, labelled with the kinds it is for.
      const options: { schema: JsonSchema; labels: string[] }[] = []
      holders.forEach((v, i) => {
        const s = schemas[i]!
        const found = options.find((o) => same({ ...o.schema, description: undefined }, { ...s, description: undefined }))
        if (found) found.labels.push(labelOf(v))
        else options.push({ schema: s, labels: [labelOf(v)] })
      })
      const labelled = options.map(({ schema: s, labels }) =>
        discriminator ? { ...s, description: `With ${discriminator} ${labels.join(' or ')}: ${s.description ?? ''}`.trim() } : s,
      )
      properties[name] = labelled.length === 1 ? labelled[0]! : { anyOf: labelled, description: `Depends on ${discriminator ?? 'the shape'}: see each option.` }
    }
  }
  return { properties, required: body.fields.filter((f) => f.required).map((f) => f.name) }
}

/** The tool's arguments for one operation: its query parameters, or its body's members. */
function inputSchemaOf(op: CatalogueOperation, spec: OperationSpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const p of op.parameters as CatalogueParameter[]) {
    const s = clean(p.schema)
    let name = p.name
    let description = p.description ?? s.description
    if (spec.paging && p.name === spec.paging.param) {
      name = CURSOR
      description = `The nextCursor of the previous answer: the next page. Omit it for the first page.${p.name === CURSOR ? '' : ` (The API's ${p.name} parameter.)`}`
    } else if (spec.paging && p.name === 'limit') {
      const limit = Math.min(TOOL_LIMIT, spec.paging.defaultLimit)
      properties.limit = { ...s, default: limit, description: `How many items to return, ${s.minimum ?? 1} to ${s.maximum} (default ${limit} here).` }
      continue
    }
    properties[name] = { ...s, ...(description ? { description } : {}) }
    if (p.required) required.push(name)
  }
  if (op.body) {
    const b = bodySchema(op.body)
    Object.assign(properties, b.properties)
    required.push(...b.required)
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }
}

let declared: DeclaredOperation[] | undefined

/** Every operation of the catalogue, with its tool's input and output schemas (made once). */
export function declaredOperations(): DeclaredOperation[] {
  declared ??= operations().map((op) => ({ ...op, inputSchema: inputSchemaOf(op, op.spec), outputSchema: outputSchemaOf(op) }))
  return declared
}
