import { readFileSync } from 'node:fs'
import { CliError } from '../../../errors.ts'

/** A policy document's text; a file that cannot be read is named with why (plan and apply read FILE alike). */
export function readPolicyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    throw new CliError(`${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
}

/** A change as one line for people: + added, ~ changed, - removed or retired. */
export const changeLine = (c: { op: 'add' | 'change' | 'remove'; sentence: string }) => `  ${{ add: '+', change: '~', remove: '-' }[c.op]} ${c.sentence}`

/** The path as typed, quoted for a shell when it needs to be (for the command a plan prints). */
export const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`)

