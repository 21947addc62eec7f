import document from '../../../sdk/openapi.json'
import { type OperationId, OPERATIONS, type OperationSpec } from '@growth-service/sdk'

/**
 * The API commands' flags, read from the same OpenAPI document the SDK is generated from (which the
 * server makes from its route declarations): a query parameter or a body field becomes a
 * `--kebab-case` flag with its type, allowed values and example in --help. A new operation, or a
 * new field, gets its flag without touching the CLI.
 *
 * Shapes a single flag cannot hold:
 * - an object with fixed members (an action's `args`) gives one flag per member (`--campaign-id`);
 * - `facts` (agent authorize) and `properties` (track) are repeatable `--fact name=value` and
 *   `--property name=value`, each value typed as the schema types that member;
 * - anything else (a list of objects) takes JSON: `--contacts '[{"email": ...}]'`.
 */

type Schema = {
  type?: string
  enum?: unknown[]
  const?: unknown
  description?: string
  properties?: Record<string, Schema>
  required?: string[]
  additionalProperties?: boolean | Schema
  items?: Schema
  oneOf?: Schema[]
  anyOf?: Schema[]
  minimum?: number
  maximum?: number
  default?: unknown
  pattern?: string
  format?: string
  example?: unknown
  $ref?: string
}

export type FlagKind = 'string' | 'integer' | 'number' | 'boolean' | 'json' | 'pairs'

export type FlagSpec = {
  /** The flag as typed: `--mission-id`. */
  flag: string
  /** The option's key in commander's parsed options: `missionId`. */
  key: string
  /** Where the value goes: the query, or the body at this path (`['args', 'campaignId']`). */
  in: 'query' | 'body'
  path: string[]
  kind: FlagKind
  /** For `pairs`: the type of each named member (`amountMinor` -> integer). */
  members?: Record<string, { kind: FlagKind; values?: string[] }>
  /** Allowed values, when the schema lists them. */
  values?: string[]
  required: boolean
  description: string
  example?: string
  /** For --help: `integer 1..100`, `one of open, resolved`. */
  typeText: string
}

export type CommandSpec = {
  operationId: OperationId
  operation: OperationSpec
  /** `['decisions', 'list']`, `['track']`: the SDK method, and the command's words. */
  words: readonly string[]
  summary: string
  description: string
  flags: FlagSpec[]
}

type Doc = {
  paths: Record<string, Record<string, { operationId: string; summary?: string; description?: string; parameters?: (Param | { $ref: string })[]; requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> } }>>
  components: { schemas: Record<string, Schema> }
}
type Param = { name: string; in: string; required?: boolean; description?: string; schema: Schema; example?: unknown }

const doc = document as unknown as Doc

/** Named-value flags: the body member, and the flag's singular name. */
const PAIRS: Record<string, string> = { facts: 'fact', properties: 'property' }

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const camel = (flag: string) => flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())

function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()!]!)
  return schema
}

/** The schema's one type, seen through `anyOf [x, null]` (a nullable field). */
function typeOf(schema: Schema): { kind: FlagKind; values?: string[]; schema: Schema } {
  const s = resolve(schema)
  const options = (s.anyOf ?? s.oneOf)?.map(resolve).filter((o) => o.type !== 'null')
  if (options && options.length === 1) return typeOf(options[0]!)
  if (options && options.length > 1) return { kind: 'json', schema: s }
  const values = s.enum ? s.enum.map(String) : s.const !== undefined ? [String(s.const)] : undefined
  if (s.type === 'integer' || s.type === 'number' || s.type === 'boolean' || s.type === 'string') return { kind: s.type, values, schema: s }
  return { kind: 'json', schema: s }
}

function typeText(kind: FlagKind, s: Schema, values?: string[]): string {
  if (values && values.length > 12) return `${kind}, ${values.length} codes such as ${values.filter((v) => ['USD', 'EUR', 'JPY'].includes(v)).join(', ') || values.slice(0, 3).join(', ')}`
  if (values) return `one of ${values.join(', ')}`
  if (kind === 'integer' || kind === 'number') {
    const lo = s.minimum !== undefined && s.minimum > -1e15 ? s.minimum : undefined
    const hi = s.maximum !== undefined && s.maximum < 1e15 ? s.maximum : undefined
    return lo !== undefined && hi !== undefined ? `${kind} ${lo}..${hi}` : lo !== undefined ? `${kind} >= ${lo}` : kind
  }
  if (kind === 'string' && s.pattern) {
    const prefix = /^\^([a-z]+_)\[/.exec(s.pattern)?.[1]
    if (prefix) return 'id'
  }
  if (kind === 'string' && s.format) return s.format
  if (kind === 'json') return 'JSON'
  return kind
}

function firstSentence(text: string | undefined): string {
  if (!text) return ''
  const line = text.split('\n')[0]!.trim()
  return line
}

function exampleText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** Every property of a body schema, across its variants (a oneOf of kinds): required only where every variant requires it. */
function bodyMembers(schema: Schema): { name: string; schema: Schema; required: boolean; enumValues?: string[] }[] {
  const s = resolve(schema)
  const variants = (s.oneOf ?? [s]).map(resolve)
  const names: string[] = []
  for (const v of variants) for (const name of Object.keys(v.properties ?? {})) if (!names.includes(name)) names.push(name)
  return names.map((name) => {
    const schemas = variants.map((v) => v.properties?.[name]).filter((x): x is Schema => x !== undefined)
    const required = variants.every((v) => v.required?.includes(name))
    // `kind` differs by variant (a const each): its values are all of them.
    const consts = schemas.map((x) => typeOf(x).values ?? []).flat()
    return { name, schema: schemas[0]!, required, enumValues: schemas.length > 1 && consts.length ? [...new Set(consts)] : undefined }
  })
}

function bodyFlags(schema: Schema, example: Record<string, unknown> | undefined): FlagSpec[] {
  const flags: FlagSpec[] = []
  for (const member of bodyMembers(schema)) {
    const s = resolve(member.schema)
    const ex = example?.[member.name]
    if (PAIRS[member.name] && (s.properties || s.additionalProperties)) {
      const members: Record<string, { kind: FlagKind; values?: string[] }> = {}
      for (const [name, ms] of Object.entries(s.properties ?? {})) {
        const t = typeOf(ms)
        members[name] = { kind: t.kind, values: t.values && t.values.length <= 12 ? t.values : undefined }
      }
      const singular = PAIRS[member.name]!
      const pairsExample = ex && typeof ex === 'object' ? Object.entries(ex as Record<string, unknown>).map(([k, v]) => `--${singular} ${k}=${v}`).join(' ') : undefined
      flags.push({
        flag: `--${singular}`,
        key: singular,
        in: 'body',
        path: [member.name],
        kind: 'pairs',
        members: s.properties ? members : undefined,
        required: member.required,
        description: `${firstSentence(s.description)} Repeat it: name=value.${s.properties ? ` Names: ${Object.keys(s.properties).join(', ')}.` : ''}`.trim(),
        example: pairsExample,
        typeText: 'name=value, repeatable',
      })
      continue
    }
    if (s.type === 'object' && s.properties) {
      // One flag per member of an object with fixed members (an action's args).
      const variants = (resolve(schema).oneOf ?? [resolve(schema)]).map(resolve)
      const seen = new Set<string>()
      for (const v of variants) {
        const inner = v.properties?.[member.name] ? resolve(v.properties[member.name]!) : undefined
        for (const [name, ms] of Object.entries(inner?.properties ?? {})) {
          if (seen.has(name)) continue
          seen.add(name)
          const t = typeOf(ms)
          flags.push({
            flag: `--${kebab(name)}`,
            key: camel(kebab(name)),
            in: 'body',
            path: [member.name, name],
            kind: t.kind,
            values: t.values,
            required: false,
            description: `${firstSentence(ms.description)} (in ${member.name})`.trim(),
            example: exampleText((ex as Record<string, unknown> | undefined)?.[name]),
            typeText: typeText(t.kind, t.schema, t.values),
          })
        }
      }
      continue
    }
    const t = typeOf(s)
    const values = member.enumValues ?? t.values
    flags.push({
      flag: `--${kebab(member.name)}`,
      key: camel(kebab(member.name)),
      in: 'body',
      path: [member.name],
      kind: t.kind,
      values,
      required: member.required,
      description: firstSentence(s.description),
      example: exampleText(ex),
      typeText: typeText(t.kind, t.schema, values),
    })
  }
  return flags
}

function queryFlags(params: Param[], paging: OperationSpec['paging']): FlagSpec[] {
  return params.map((p) => {
    const t = typeOf(p.schema)
    return {
      flag: `--${kebab(p.name)}`,
      key: camel(kebab(p.name)),
      in: 'query' as const,
      path: [p.name],
      kind: t.kind,
      values: t.values,
      required: Boolean(p.required),
      description: firstSentence(p.description),
      example: exampleText(p.example),
      typeText: p.name === paging?.param ? 'position' : typeText(t.kind, t.schema, t.values),
    }
  })
}

/** Every operation the SDK has a method for, as a command. */
export function commandSpecs(): CommandSpec[] {
  const specs: CommandSpec[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const operationId = op.operationId as OperationId
      const operation = OPERATIONS[operationId] as OperationSpec | undefined
      if (!operation || operation.method !== method.toUpperCase() || !path.endsWith(operation.path)) continue
      const params = (op.parameters ?? []).filter((p): p is Param => !('$ref' in p) && p.in === 'query')
      const body = op.requestBody?.content['application/json']
      const flags = [...queryFlags(params, operation.paging), ...(body ? bodyFlags(body.schema, body.example as Record<string, unknown> | undefined) : [])]
      specs.push({ operationId, operation, words: operation.sdk, summary: op.summary ?? '', description: op.description ?? '', flags })
    }
  }
  return specs
}
