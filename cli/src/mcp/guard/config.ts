import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { type AuthorizeAgentActionRequest, clip, oneLine } from '@growth-service/sdk'
import { closestField, fieldsAt } from '../../../../server/src/domain/document-fields.ts'
import { CliError } from '../../errors.ts'
import { componentSchema, type JsonSchema } from '../schema.ts'

/**
 * The guard's configuration file (JSON): for each upstream tool by name, the gateway tool and action
 * it is, what it acts on, and which of its arguments become which facts.
 *
 *   { "tools": { "send_email": { "tool": "email", "action": "send_campaign",
 *                                "resource": "$.subject", "facts": { "recipients": "$.to.length" } } } }
 *
 * A value that starts with `$` is read from the call's arguments: `$` is all of them, `$.to` one,
 * `$.to[0]` or `$.to.0` an item, `$.message.subject` a nested one, and `.length` the length of an
 * array or a string. Any other value is taken as written (`"currency": "USD"`, `"increase": true`,
 * `"resource": "inbox"`). A path that finds nothing refuses the call: a fact the gateway never sees
 * cannot be judged.
 */

const PATH = /^\$((\.[A-Za-z_$][\w$-]*|\.\d+|\[\d+\])*)$/

const path = z.string().regex(PATH, 'must be a path such as $.to.length, $.message.subject or $.items[0]')
const valueOrPath = z.union([z.number(), z.boolean(), z.string()]).superRefine((v, ctx) => {
  if (typeof v === 'string' && v.startsWith('$') && !PATH.test(v)) ctx.addIssue({ code: 'custom', message: 'must be a path such as $.to.length, $.message.subject or $.items[0]' })
})
const key = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a gateway key such as email or send_campaign (lower case, digits, _)')

/**
 * The facts the gateway takes, and what each may be, read from the OpenAPI document the SDK ships
 * (AuthorizeAgentActionRequest.facts): a value given in the file (not a path) must be one the gateway
 * would take, so a mistake is refused when the guard starts, not on an agent's first call.
 */
const FACT_SCHEMAS = componentSchema('AuthorizeAgentActionRequest').properties!.facts!.properties!
const FACT_NAMES = Object.keys(FACT_SCHEMAS)
const FACT_VALUES: Record<string, { schema: z.ZodType; says: string }> = Object.fromEntries(
  Object.entries(FACT_SCHEMAS).map(([name, s]) => [name, { schema: z.fromJSONSchema(s as never), says: says(s) }]),
)

/** What a fact's value may be, in a few words: "an integer >= 0", "true or false", or its description's first clause. */
function says(s: JsonSchema): string {
  if (s.type === 'boolean') return 'true or false'
  if (s.type === 'integer' || s.type === 'number') {
    const bound = s.minimum === undefined ? '' : ` >= ${s.minimum}`
    const top = s.maximum === undefined || s.maximum === Number.MAX_SAFE_INTEGER ? '' : ` and <= ${s.maximum}`
    return `${s.type === 'integer' ? 'an integer' : 'a number'}${bound}${top}`
  }
  // A string: its description's first clause ("ISO 4217 code in capitals, e.g. USD"), and the number of values an enum allows.
  const clause = (s.description ?? `a ${s.type ?? 'value'}`).split(';')[0]!.replace(/\.$/, '')
  return s.enum ? `${clause} (one of the ${s.enum.length} the gateway takes)` : clause
}

const factValue = (fact: string) =>
  valueOrPath.superRefine((v, ctx) => {
    if (typeof v === 'string' && v.startsWith('$')) return
    if (!FACT_VALUES[fact].schema.safeParse(v).success) ctx.addIssue({ code: 'custom', message: `must be a path such as $.to.length, or ${FACT_VALUES[fact].says}` })
  })

const Mapping = z.strictObject({
  tool: key,
  action: key,
  resource: z.string().min(1).max(500).optional(),
  summary: z.string().min(1).max(500).optional(),
  facts: z.strictObject(Object.fromEntries(FACT_NAMES.map((f) => [f, factValue(f).optional()])) as Record<string, z.ZodOptional<typeof valueOrPath>>).optional(),
})

const ConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  tools: z.record(z.string().min(1), Mapping),
})

export type GuardConfig = z.output<typeof ConfigSchema>
type ToolMapping = z.output<typeof Mapping>

/** Reads and checks the file; a bad field is named by its place in the file (`tools.send_email.facts.recipients`). */
export function loadConfig(file: string): GuardConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new CliError(`cannot read --config ${file}: ${(err as Error).message}`)
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    throw new CliError(`--config ${file} is not JSON: ${(err as Error).message}`)
  }
  return parseConfig(raw, file)
}

/**
 * Every mistake of the file, in one line: a missing field is `is required`; an unknown one is named
 * with the one it most likely meant and the fields its place takes (`unknown field acton in
 * tools.pause, did you mean action? (fields are tool, action, ...)`), so a misspelt key is not
 * reported only as the key it left missing.
 */
function parseConfig(raw: unknown, file = 'the config'): GuardConfig {
  const parsed = ConfigSchema.safeParse(raw)
  if (parsed.success) return parsed.data
  const messages = parsed.error.issues.map((issue) => {
    const where = issue.path.length ? issue.path.map(String).join('.') : '(the whole file)'
    if (issue.code === 'unrecognized_keys') {
      const fields = fieldsAt(ConfigSchema, issue.path, raw) ?? []
      const meant = issue.keys.length === 1 ? closestField(issue.keys[0]!, fields) : undefined
      const known = issue.path.at(-1) === 'facts' ? `facts are ${FACT_NAMES.join(', ')}` : `fields are ${fields.join(', ')}`
      return `unknown ${issue.keys.length > 1 ? 'fields' : 'field'} ${issue.keys.join(', ')}${where === '(the whole file)' ? '' : ` in ${where}`}${meant ? `, did you mean ${meant}?` : ''} (${known})`
    }
    const missing = issue.code === 'invalid_type' && valueAt(raw, issue.path) === undefined
    return `${where}: ${missing ? 'is required' : issue.message}`
  })
  throw new CliError(`--config ${file}: ${messages.join('; ')}`)
}

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let v = data
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined
  return v
}

/** The mapping of an upstream tool, if the config has one (its own key only: no tool is named `constructor` by inheritance). */
export function mappingOf(config: GuardConfig, name: string): ToolMapping | undefined {
  return Object.hasOwn(config.tools, name) ? config.tools[name] : undefined
}

/** Where a path found nothing: the call is refused with this message. */
export class MissingArgument extends Error {}

/** The value at a `$...` path in the arguments (undefined when it is not there). */
function readPath(args: unknown, expression: string): unknown {
  const steps = [...expression.slice(1).matchAll(/\.([^.[]+)|\[(\d+)\]/g)].map((m) => m[1] ?? m[2]!)
  let value: unknown = args
  for (const step of steps) {
    if (value === null || value === undefined) return undefined
    if (step === 'length' && (Array.isArray(value) || typeof value === 'string')) value = value.length
    else if (typeof value === 'object' && Object.hasOwn(value, step)) value = (value as Record<string, unknown>)[step]
    else return undefined
  }
  return value
}

function resolve(args: unknown, value: string | number | boolean, what: string): unknown {
  if (typeof value !== 'string' || !value.startsWith('$')) return value
  const found = readPath(args, value)
  if (found === undefined) throw new MissingArgument(`${what} is read from ${value}, and the call's arguments have nothing there`)
  return found
}

/** The authorize request for one call of a mapped upstream tool. */
export function requestFor(name: string, mapping: ToolMapping, args: Record<string, unknown>): AuthorizeAgentActionRequest {
  const facts: Record<string, unknown> = {}
  for (const [fact, value] of Object.entries(mapping.facts ?? {})) {
    if (value !== undefined) facts[fact] = resolve(args, value, `the fact ${fact}`)
  }
  const request: Record<string, unknown> = { tool: mapping.tool, action: mapping.action, params: { tool: name, arguments: args } }
  if (mapping.resource !== undefined) {
    const resource = resolve(args, mapping.resource, 'the resource')
    // A path to an object or a list names no one thing: refused like a path that finds nothing.
    if (resource === null || typeof resource === 'object') throw new MissingArgument(`the resource is read from ${mapping.resource}, and the call's arguments hold ${Array.isArray(resource) ? 'a list' : resource === null ? 'null' : 'an object'} there, not a name`)
    request.resource = String(resource).slice(0, 500)
  }
  // The summary is kept and shown to people: by default it names the call, not its arguments (an
  // e-mail's addresses and body stay out of the record; they reach the gateway only as a digest).
  request.summary = summaryLine(mapping.summary ?? `${name} through growth mcp guard${request.resource ? ` on ${request.resource}` : ''}`)
  if (Object.keys(facts).length) request.facts = facts
  return request as AuthorizeAgentActionRequest
}

/** An approval's summary: one line of at most 500 characters. */
const summaryLine = (text: string) => clip(oneLine(text), 500)
