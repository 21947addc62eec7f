import type { OperationId, OperationSpec } from '@growth-service/sdk'
import { answersDecision } from './verdict.ts'
import { type BodyField, type CatalogueBody, type CatalogueParameter, type JsonSchema, operations, resolve, shapeOf, type ValueShape } from '../catalogue.ts'

/**
 * The API commands' flags, made from the operation catalogue (catalogue.ts: the OpenAPI document
 * the SDK is generated from, read once, as the MCP tools are): a query parameter or a body field becomes a
 * `--kebab-case` flag with its type, allowed values and example in --help. A new operation, or a
 * new field, gets its flag without touching the CLI.
 *
 * Shapes a single flag cannot hold:
 * - an object with fixed members (an action's `args`) gives one flag per member (`--campaign-id`);
 * - `facts` (agent authorize) and `properties` (track) are repeatable `--fact name=value` and
 *   `--property name=value`, each value typed as the schema types that member;
 * - anything else (a list of objects) takes JSON: `--contacts '[{"email": ...}]'`.
 *
 * An operation whose answer is a decision (agent authorize) also takes --require-allowed (verdict.ts).
 */

type Schema = JsonSchema

type FlagKind = 'string' | 'integer' | 'number' | 'boolean' | 'json' | 'pairs'

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
  members?: Record<string, { kind: FlagKind; values?: string[]; minimum?: number; maximum?: number }>
  /** Allowed values, when the schema lists them. */
  values?: string[]
  /** The range a number must be in, when the schema sets one: checked before any request. */
  minimum?: number
  maximum?: number
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
  /** Its answer is a decision (the data says whether to proceed): the command takes --require-allowed (verdict.ts). */
  decides: boolean
}

/** Named-value flags: the body member, and the flag's singular name. */
const PAIRS: Record<string, string> = { facts: 'fact', properties: 'property' }

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const camel = (flag: string) => flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())

const typeOf = (schema: Schema): ValueShape => shapeOf(schema)

/** The range a flag checks its value against, when the schema sets one. */
const rangeOf = (t: ValueShape) => ({ ...(t.minimum !== undefined ? { minimum: t.minimum } : {}), ...(t.maximum !== undefined ? { maximum: t.maximum } : {}) })

function typeText(t: ValueShape, values = t.values): string {
  const { kind, schema: s } = t
  if (values && values.length > 12) return `${kind}, ${values.length} codes such as ${values.filter((v) => ['USD', 'EUR', 'JPY'].includes(v)).join(', ') || values.slice(0, 3).join(', ')}`
  if (values) return `one of ${values.join(', ')}`
  if (kind === 'integer' || kind === 'number') {
    const { minimum: lo, maximum: hi } = t
    return lo !== undefined && hi !== undefined ? `${kind} ${lo}..${hi}` : lo !== undefined ? `${kind} >= ${lo}` : hi !== undefined ? `${kind} <= ${hi}` : kind
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

/**
 * What a member means when it means something else in each shape of the body (an action's `kind`:
 * "Pause an active campaign", "Adjust a daily budget"; an experiment's `expectation`, whose values
 * depend on its kind): each shape's meaning after the value of `kind` that picks it. Undefined when
 * it means one thing in every shape it is in.
 */
function meaningPerShape(field: BodyField): string | undefined {
  if (field.holders.length < 2) return undefined
  // The first sentence of each (a kind's description goes on to its args, which have flags of their own).
  const texts = field.holders.map((h) => firstSentence(resolve(h.schema).description).split(/(?<=\.)\s/)[0]!.replace(/\.$/, ''))
  if (new Set(texts).size < 2) return undefined
  const kindsOf = (h: BodyField['holders'][number]) => {
    const kind = h.shape.properties?.kind
    return (kind ? typeOf(kind).values : undefined)?.join(' or ')
  }
  return field.holders.map((h, i) => (kindsOf(h) ? `${kindsOf(h)}: ${texts[i]}` : texts[i])).join('; ')
}

/** A body's members as flags take them: `kind`, which differs by shape (a const each), takes all of its values. */
function bodyMembers(body: CatalogueBody): (BodyField & { schema: Schema; enumValues?: string[] })[] {
  return body.fields.map((field) => {
    const consts = field.holders.map((h) => typeOf(h.schema).values ?? []).flat()
    return { ...field, schema: field.holders[0]!.schema, enumValues: field.holders.length > 1 && consts.length ? [...new Set(consts)] : undefined }
  })
}

function bodyFlags(body: CatalogueBody): FlagSpec[] {
  const flags: FlagSpec[] = []
  for (const member of bodyMembers(body)) {
    const s = resolve(member.schema)
    const ex = body.example?.[member.name]
    if (PAIRS[member.name] && (s.properties || s.additionalProperties)) {
      const members: NonNullable<FlagSpec['members']> = {}
      for (const [name, ms] of Object.entries(s.properties ?? {})) {
        const t = typeOf(ms)
        members[name] = { kind: t.kind, values: t.values, ...rangeOf(t) }
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
      const seen = new Set<string>()
      for (const holder of member.holders) {
        const inner = resolve(holder.schema)
        for (const [name, ms] of Object.entries(inner.properties ?? {})) {
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
            ...rangeOf(t),
            required: false,
            description: `${firstSentence(ms.description)} (in ${member.name})`.trim(),
            example: exampleText((ex as Record<string, unknown> | undefined)?.[name]),
            typeText: typeText(t),
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
      ...rangeOf(t),
      required: member.required,
      description: meaningPerShape(member) ?? firstSentence(s.description),
      example: exampleText(ex),
      typeText: typeText(t, values),
    })
  }
  return flags
}

function queryFlags(params: CatalogueParameter[], paging: OperationSpec['paging']): FlagSpec[] {
  return params.map((p) => {
    const t = p.shape
    return {
      flag: `--${kebab(p.name)}`,
      key: camel(kebab(p.name)),
      in: 'query' as const,
      path: [p.name],
      kind: t.kind,
      values: t.values,
      ...rangeOf(t),
      required: p.required,
      description: firstSentence(p.description),
      example: exampleText(p.example),
      typeText: p.name === paging?.param ? 'position' : typeText(t),
    }
  })
}

/** Every operation the SDK has a method for, as a command. */
export function commandSpecs(): CommandSpec[] {
  return operations().map((op) => ({
    operationId: op.operationId,
    operation: op.spec,
    words: op.spec.sdk,
    summary: op.summary,
    description: op.description,
    flags: [...queryFlags(op.parameters, op.spec.paging), ...(op.body ? bodyFlags(op.body) : [])],
    decides: answersDecision(op.response),
  }))
}
