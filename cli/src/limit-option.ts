import { CliError } from './errors.ts'

/** `--limit N` of a list command: a whole number from 1 to `max`, or a usage error naming what was given. */
export function limitOption(raw: string, max = 1000): number {
  const n = Number(raw)
  if (!/^[0-9]+$/.test(raw) || n < 1 || n > max) throw new CliError(`--limit must be a whole number from 1 to ${max} (got ${raw}).`)
  return n
}
