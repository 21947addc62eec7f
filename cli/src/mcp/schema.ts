import document from '../../../sdk/openapi.json'
import { type OperationId, OPERATIONS, type OperationSpec } from '@growth-service/sdk'

/**
 * The MCP tools' input schemas, generated from the same OpenAPI document the SDK's methods and the
 * CLI's flags come from (sdk/openapi.json, which the server makes from its route declarations). A
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
 *   ISO 4217 codes: `^[A-Z]{3}$`), and bounds that only say "a safe integer" are dropped.
 *
 * test/mcp/tools.test.ts compares each tool with the document the server serves.
 */

export type JsonSchema = Record<string, unknown> & {
  type?: string | string[]
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  enum?: unknown[]
  const?: unknown
  oneOf?: JsonSchema[]
  anyOf?: JsonSchema[]
  items?: JsonSchema
  default?: unknown
  minimum?: number
  maximum?: number
  $ref?: string
}

type Param = { name: string; in: string; required?: boolean; description?: string; schema: JsonSchema }
type Op = {
  operationId: string
  summary?: string
  description?: string
  parameters?: (Param | { $ref: string })[]
  requestBody?: { content: Record<string, { schema: JsonSchema }> }
  'x-scope'?: string
}
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, JsonSchema> } }

const doc = document as unknown as Doc

/** An enum longer than this is left to the schema's pattern. */
const LARGE_ENUM = 32
/** What a list tool returns when given no limit (never more than the API's own default). */
export const TOOL_LIMIT = 20
/** The argument every list tool pages with. */
export const CURSOR = 'cursor'

const SAFE = Number.MAX_SAFE_INTEGER

/** One operation as the document declares it, with what the SDK knows of it. */
export type DeclaredOperation = {
  operationId: OperationId
  spec: OperationSpec
  summary: string
  description: string
  /** The scope a workspace token needs; undefined for agent operations. */
  scope: string | undefined
  /** Who calls it: a workspace token, or an agent credential. */
  caller: 'workspace' | 'agent'
  inputSchema: JsonSchema
}

/** A schema of the document's components by name, as the document writes it (enums and bounds kept). */
export function componentSchema(name: string): JsonSchema {
  const schema = doc.components.schemas[name]
  if (!schema) throw new Error(`the OpenAPI document has no schema ${name}`)
  return schema
}

function resolve(schema: JsonSchema, seen: Set<string> = new Set()): JsonSchema {
  if (!schema.$ref) return schema
  const name = schema.$ref.split('/').pop()!
  if (seen.has(name)) throw new Error(`the OpenAPI schema ${name} refers to itself`)
  return resolve(doc.components.schemas[name]!, new Set([...seen, name]))
}

/** A schema written out in full ($refs inlined), long enums and safe-integer bounds dropped. */
function clean(schema: JsonSchema): JsonSchema {
  const s = resolve(schema)
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(s)) {
    if (key === 'enum' && Array.isArray(value) && value.length > LARGE_ENUM && typeof s.pattern === 'string') continue
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && Math.abs(value) >= SAFE) continue
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

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The values a member takes when it is a string constant or a short enum (a discriminator such as `kind`). */
function constantsOf(s: JsonSchema): string[] | undefined {
  if (s.const !== undefined && typeof s.const === 'string') return [s.const]
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string')) return s.enum as string[]
  return undefined
}

/** The body's shapes as one object schema: see the file's comment. */
function bodySchema(schema: JsonSchema): { properties: Record<string, JsonSchema>; required: string[] } {
  const top = resolve(schema)
  const variants = (top.oneOf ?? [top]).map((v) => resolve(v))
  const names: string[] = []
  for (const v of variants) for (const name of Object.keys(v.properties ?? {})) if (!names.includes(name)) names.push(name)
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
  for (const name of names) {
    const holders = variants.filter((v) => v.properties?.[name])
    const schemas = holders.map((v) => clean(v.properties![name]!))
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
  const required = names.filter((name) => variants.every((v) => v.required?.includes(name)))
  return { properties, required }
}

function queryParams(op: Op): Param[] {
  return (op.parameters ?? []).filter((p): p is Param => !('$ref' in p) && p.in === 'query')
}

/** The tool's arguments for one operation: its query parameters, or its body's members. */
function inputSchemaOf(op: Op, spec: OperationSpec): JsonSchema {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const p of queryParams(op)) {
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
  const body = op.requestBody?.content['application/json']?.schema
  if (body) {
    const b = bodySchema(body)
    Object.assign(properties, b.properties)
    required.push(...b.required)
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }
}

/** Every operation the SDK has a method for (the meta endpoints have none: they need no credential). */
export function declaredOperations(): DeclaredOperation[] {
  const out: DeclaredOperation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const operationId = op.operationId as OperationId
      const spec = OPERATIONS[operationId] as OperationSpec | undefined
      if (!spec || spec.method !== method.toUpperCase() || !path.endsWith(spec.path)) continue
      out.push({
        operationId,
        spec,
        summary: op.summary ?? operationId,
        description: op.description ?? '',
        scope: op['x-scope'],
        caller: op['x-scope'] ? 'workspace' : 'agent',
        inputSchema: inputSchemaOf(op, spec),
      })
    }
  }
  return out
}
