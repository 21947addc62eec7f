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

/**
 * The rules the plan replaces with a rule that says the same: most often a rule written without the
 * id the rule in force has (a file written by hand, or kept from before its first apply), which is a
 * new rule by the contract. Each is told once, with the id that would keep it, so an owner does not
 * replace every rule (and the ids past decisions name) without meaning to.
 */
export function sameRuleNotes(changes: readonly { kind: string; op: string; key: string; sentence: string }[]): string[] {
  const removed = new Map<string, string>()
  for (const c of changes) {
    if (c.kind === 'rule' && c.op === 'remove' && c.sentence.startsWith('Removes the rule: ')) removed.set(c.sentence.slice('Removes the rule: '.length), c.key)
  }
  const notes: string[] = []
  for (const c of changes) {
    if (c.kind !== 'rule' || c.op !== 'add' || !c.sentence.startsWith('Adds the rule: ')) continue
    const said = c.sentence.slice('Adds the rule: '.length)
    const id = removed.get(said)
    if (!id) continue
    removed.delete(said)
    notes.push(
      `Note: ${c.key} says what ${id} in force says but is written without its id, so it replaces that rule with a new one (past decisions keep naming ${id}). ` +
        `To keep the rule as it is, give it "id: ${id}" (growth admin policy export prints the rules with their ids).`,
    )
  }
  return notes
}
