import { CliError } from '../errors.ts'
import type { FlagSpec } from './flags.ts'

/**
 * A flag's text as the value the API takes, checked against the flag's type so that a mistake is
 * named by the flag the person typed (`--limit must be a whole number, got "ten"`). What only the
 * API can judge (an id that names nothing, a rule of the spec) it answers itself.
 */
export function valueOf(flag: FlagSpec, raw: string | string[]): unknown {
  if (flag.kind === 'pairs') return pairsOf(flag, Array.isArray(raw) ? raw : [raw])
  const text = Array.isArray(raw) ? raw.at(-1)! : raw
  return scalar(flag.flag, flag.kind, text, flag.values, flag)
}

type Range = { minimum?: number; maximum?: number }

/** A number outside the schema's range, named with the range, before any request is sent. */
function inRange(name: string, n: number, text: string, { minimum, maximum }: Range): number {
  if ((minimum !== undefined && n < minimum) || (maximum !== undefined && n > maximum)) {
    const range = minimum !== undefined && maximum !== undefined ? `from ${minimum} to ${maximum}` : minimum !== undefined ? `at least ${minimum}` : `at most ${maximum}`
    throw new CliError(`${name} must be ${range}, got ${JSON.stringify(text)}`)
  }
  return n
}

function scalar(name: string, kind: FlagSpec['kind'], text: string, values?: string[], range: Range = {}): unknown {
  switch (kind) {
    case 'integer':
      if (!/^-?\d+$/.test(text.trim())) throw new CliError(`${name} must be a whole number, got ${JSON.stringify(text)}`)
      return inRange(name, Number(text.trim()), text, range)
    case 'number': {
      const n = Number(text.trim())
      if (text.trim() === '' || !Number.isFinite(n)) throw new CliError(`${name} must be a number, got ${JSON.stringify(text)}`)
      return inRange(name, n, text, range)
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw new CliError(`${name} must be true or false, got ${JSON.stringify(text)}`)
      return text === 'true'
    case 'json':
      try {
        return JSON.parse(text)
      } catch (err) {
        throw new CliError(`${name} must be JSON: ${(err as Error).message}`)
      }
    default:
      if (values && !values.includes(text)) {
        const allowed = values.length <= 12 ? values.join(', ') : `the ${values.length} codes the API lists (${values.filter((v) => ['USD', 'EUR', 'JPY'].includes(v)).join(', ') || values.slice(0, 3).join(', ')}, ...)`
        throw new CliError(`${name} must be one of ${allowed}; got ${JSON.stringify(text)}`)
      }
      return text
  }
}

/**
 * Repeated `name=value` as an object. With the members typed by the schema (agent facts), each value
 * is read as its member's type. Without (tracked-event properties), a value is text, and
 * `name:=value` gives JSON (a number, true, null), as HTTPie writes it.
 */
function pairsOf(flag: FlagSpec, items: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const item of items) {
    const typed = /^([^=:]+):=(.*)$/s.exec(item)
    const plain = typed ? undefined : /^([^=]+)=(.*)$/s.exec(item)
    const m = typed ?? plain
    if (!m) throw new CliError(`${flag.flag} takes name=value, got ${JSON.stringify(item)}`)
    const name = m[1]!.trim()
    const text = m[2]!
    if (flag.members) {
      const member = flag.members[name]
      if (!member) throw new CliError(`${flag.flag} ${name}: no such name; the names are ${Object.keys(flag.members).join(', ')}`)
      out[name] = scalar(`${flag.flag} ${name}`, member.kind, text, member.values, member)
    } else {
      out[name] = typed ? scalar(`${flag.flag} ${name}`, 'json', text) : text
    }
  }
  return out
}

/** Sets `value` at `path` of `target`, making the objects on the way. */
export function setAt(target: Record<string, unknown>, path: string[], value: unknown) {
  let at = target
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>
  at[path.at(-1)!] = value
}
