import document from '../../sdk/openapi.json'
import { type OperationId, OPERATIONS, type OperationSpec } from '@growth-service/sdk'

/**
 * The CLI's one operation catalogue: the OpenAPI document the SDK is generated from (which the
 * server makes from its route declarations), read once into what the API commands' flags
 * (api/flags.ts) and the MCP tools (mcp/schema.ts) are made of. Per operation: its id, method and
 * path, the scope it needs, its query parameters with their types, ranges and allowed values, its
 * body's schema and example, and the schema of the data a success answers.
 */

export type JsonSchema = Record<string, unknown> & {
  type?: string | string[]
  description?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  enum?: unknown[]
  const?: unknown
  oneOf?: JsonSchema[]
  anyOf?: JsonSchema[]
  items?: JsonSchema
  default?: unknown
  minimum?: number
  maximum?: number
  pattern?: string
  format?: string
  example?: unknown
  $ref?: string
}

/** What one value is, seen through `anyOf [x, null]` (a nullable field): its type, range and allowed values. */
export type ValueShape = {
  kind: 'string' | 'integer' | 'number' | 'boolean' | 'json'
  /** The allowed values, when the schema lists them (a const is one). */
  values?: string[]
  /** Bounds, when the schema sets them (a bound that only says "a safe integer" is left out). */
  minimum?: number
  maximum?: number
  /** The schema itself (resolved), for what else it says (a pattern, a format). */
  schema: JsonSchema
}

export type CatalogueParameter = {
  name: string
  required: boolean
  description: string | undefined
  example: unknown
  /** As the document writes it. */
  schema: JsonSchema
  shape: ValueShape
}

/** One member of a body, across its shapes (a body may be a oneOf of shapes, by `kind`). */
export type BodyField = {
  name: string
  /** Required only when every shape requires it. */
  required: boolean
  /** Each shape that has it, and its schema there (as the document writes it). */
  holders: { shape: JsonSchema; schema: JsonSchema }[]
}

export type CatalogueBody = {
  /** As the document writes it. */
  schema: JsonSchema
  example: Record<string, unknown> | undefined
  /** Its shapes, resolved: the oneOf's members, or the one object. */
  shapes: JsonSchema[]
  /** Every member of every shape, in the order they first appear. */
  fields: BodyField[]
}

export type CatalogueOperation = {
  operationId: OperationId
  /** What the SDK knows of it: its method's words, kind (list, item, write) and paging. */
  spec: OperationSpec
  method: string
  /** The path as the document writes it, /api/v1 included. */
  path: string
  summary: string
  description: string
  /** The scope a workspace token needs; undefined for agent operations. */
  scope: string | undefined
  /** Who calls it: a workspace token, or an agent credential. */
  caller: 'workspace' | 'agent'
  /** Its query parameters. */
  parameters: CatalogueParameter[]
  /** Its JSON body, if it takes one. */
  body: CatalogueBody | undefined
  /** The `data` of a success answer, as the document writes it. */
  response: JsonSchema
  /** What a test token's write answers instead (SimulatedWrite), for the operations that may. */
  simulated: JsonSchema | undefined
}

type Param = { name: string; in: string; required?: boolean; description?: string; schema: JsonSchema; example?: unknown }
type Op = {
  operationId: string
  summary?: string
  description?: string
  parameters?: (Param | { $ref: string })[]
  requestBody?: { content: Record<string, { schema: JsonSchema; example?: unknown }> }
  responses?: Record<string, { content?: Record<string, { schema: JsonSchema }> }>
  'x-scope'?: string
}
type Doc = { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, JsonSchema> } }

const doc = document as unknown as Doc

/** Bounds at or past this only say "a safe integer": no range a person needs told. */
const SAFE = Number.MAX_SAFE_INTEGER

/** A schema of the document's components by name, as the document writes it (enums and bounds kept). */
export function componentSchema(name: string): JsonSchema {
  const schema = doc.components.schemas[name]
  if (!schema) throw new Error(`the OpenAPI document has no schema ${name}`)
  return schema
}

/** A `$ref` followed to the schema it names (and on, if that is one too). */
export function resolve(schema: JsonSchema, seen: Set<string> = new Set()): JsonSchema {
  if (!schema.$ref) return schema
  const name = schema.$ref.split('/').pop()!
  if (seen.has(name)) throw new Error(`the OpenAPI schema ${name} refers to itself`)
  return resolve(componentSchema(name), new Set([...seen, name]))
}

/** A bound worth telling: set, and not just the safe-integer limit. */
export const boundOf = (value: unknown): number | undefined => (typeof value === 'number' && Math.abs(value) < SAFE ? value : undefined)

/** The schema's one type, seen through `anyOf [x, null]`; several types, or an object or array, is JSON. */
export function shapeOf(schema: JsonSchema): ValueShape {
  const s = resolve(schema)
  const options = (s.anyOf ?? s.oneOf)?.map((o) => resolve(o)).filter((o) => o.type !== 'null')
  if (options && options.length === 1) return shapeOf(options[0]!)
  if (options && options.length > 1) return { kind: 'json', schema: s }
  const values = s.enum ? s.enum.map(String) : s.const !== undefined ? [String(s.const)] : undefined
  const type = Array.isArray(s.type) ? (s.type.filter((t) => t !== 'null').length === 1 ? s.type.find((t) => t !== 'null') : undefined) : s.type
  if (type === 'integer' || type === 'number' || type === 'boolean' || type === 'string') {
    const minimum = boundOf(s.minimum)
    const maximum = boundOf(s.maximum)
    return { kind: type, schema: s, ...(values ? { values } : {}), ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) }
  }
  return { kind: 'json', schema: s }
}

const isSimulatedWrite = (schema: JsonSchema) => schema.$ref?.split('/').pop() === 'SimulatedWrite'

/** The data of the operation's success answer, and whether a test token's write answers a SimulatedWrite instead. */
function responseOf(op: Op): { response: JsonSchema; simulated: JsonSchema | undefined } {
  const data: JsonSchema[] = []
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue
    const schema = response.content?.['application/json']?.schema
    const member = schema ? resolve(schema).properties?.data : undefined
    if (member) data.push(member)
  }
  const records = data.filter((d) => !isSimulatedWrite(d))
  if (records.length !== 1) throw new Error(`the OpenAPI document gives ${op.operationId} ${records.length} kinds of success data; the CLI expects one`)
  return { response: records[0]!, simulated: data.find(isSimulatedWrite) }
}

function bodyOf(schema: JsonSchema, example: unknown): CatalogueBody {
  const top = resolve(schema)
  const shapes = (top.oneOf ?? [top]).map((v) => resolve(v))
  const names: string[] = []
  for (const v of shapes) for (const name of Object.keys(v.properties ?? {})) if (!names.includes(name)) names.push(name)
  const fields = names.map((name) => ({
    name,
    required: shapes.every((v) => v.required?.includes(name)),
    holders: shapes.filter((v) => v.properties?.[name]).map((shape) => ({ shape, schema: shape.properties![name]! })),
  }))
  return { schema, example: example as Record<string, unknown> | undefined, shapes, fields }
}

function read(): CatalogueOperation[] {
  const out: CatalogueOperation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const operationId = op.operationId as OperationId
      const spec = OPERATIONS[operationId] as OperationSpec | undefined
      // Only the operations the SDK has a method for (the meta endpoints need no credential and have none).
      if (!spec || spec.method !== method.toUpperCase() || !path.endsWith(spec.path)) continue
      const parameters = (op.parameters ?? [])
        .filter((p): p is Param => !('$ref' in p) && p.in === 'query')
        .map((p) => ({ name: p.name, required: Boolean(p.required), description: p.description, example: p.example, schema: p.schema, shape: shapeOf(p.schema) }))
      const json = op.requestBody?.content['application/json']
      out.push({
        operationId,
        spec,
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        description: op.description ?? '',
        scope: op['x-scope'],
        caller: op['x-scope'] ? 'workspace' : 'agent',
        parameters,
        body: json ? bodyOf(json.schema, json.example) : undefined,
        ...responseOf(op),
      })
    }
  }
  return out
}

let catalogue: readonly CatalogueOperation[] | undefined

/** Every operation the SDK has a method for, read from the document once. */
export function operations(): readonly CatalogueOperation[] {
  catalogue ??= read()
  return catalogue
}
