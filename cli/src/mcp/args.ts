import type { JsonSchema } from './schema.ts'

/**
 * A tool call's arguments checked against the tool's input schema before anything is sent, so a
 * mistake is named by the argument the model gave (`limit must be an integer; got "ten"`). Only
 * what the top level of the schema says (names, required, type, allowed values, bounds): the API
 * judges the rest (a pattern, the members of an object, a rule) and names the field itself.
 * A null stands for an argument not given, as models often send it.
 */

type ArgumentProblem = { argument: string; message: string }

const typeOfValue = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v)

function typesOf(schema: JsonSchema): string[] | undefined {
  if (schema.type) return Array.isArray(schema.type) ? schema.type : [schema.type]
  const options = schema.anyOf ?? schema.oneOf
  if (!options) return undefined
  const all = options.map(typesOf)
  return all.some((t) => !t) ? undefined : [...new Set(all.flat() as string[])]
}

const article = (t: string) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`)
const got = (v: unknown) => `got ${JSON.stringify(v)?.slice(0, 80) ?? String(v)}`

function checkOne(name: string, schema: JsonSchema, value: unknown): string | undefined {
  const types = typesOf(schema)
  const actual = typeOfValue(value)
  if (types && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
    const wanted = types.filter((t) => t !== 'null').map((t) => (t === 'object' ? 'a JSON object' : article(t)))
    return `${name} must be ${wanted.join(' or ')}; ${got(value)}`
  }
  const allowed = schema.enum ?? (schema.const !== undefined ? [schema.const] : undefined)
  if (allowed && !allowed.some((a) => a === value)) return `${name} must be one of ${allowed.map((a) => String(a)).join(', ')}; ${got(value)}`
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `${name} must be at least ${schema.minimum}; ${got(value)}`
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `${name} must be at most ${schema.maximum}; ${got(value)}`
  }
  if (typeof value === 'string' && value.length === 0 && (schema.minLength as number | undefined)) return `${name} must not be empty`
  return undefined
}

/** The arguments without nulls, or the first problem with them. */
export function checkArguments(tool: string, schema: JsonSchema, raw: unknown): { args: Record<string, unknown> } | { problem: ArgumentProblem } {
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    return { problem: { argument: '(arguments)', message: `the arguments of ${tool} must be a JSON object; ${got(raw)}` } }
  }
  const properties = schema.properties ?? {}
  const args = Object.fromEntries(Object.entries((raw ?? {}) as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined))
  for (const name of Object.keys(args)) {
    if (!(name in properties)) {
      const names = Object.keys(properties)
      return { problem: { argument: name, message: `${tool} takes no argument ${name}; it takes ${names.length ? names.join(', ') : 'none'}` } }
    }
  }
  for (const name of schema.required ?? []) {
    if (!(name in args)) return { problem: { argument: name, message: `${name} is required` } }
  }
  for (const [name, value] of Object.entries(args)) {
    const message = checkOne(name, properties[name]!, value)
    if (message) return { problem: { argument: name, message } }
  }
  return { args }
}
