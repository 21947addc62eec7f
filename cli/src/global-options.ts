import { type Command, Option } from 'commander'
import { credentialOptions } from './api/credentials.ts'
import { CliError } from './errors.ts'
import { JSON_FLAG } from './output.ts'

/**
 * Flags a person may put before the command as well as after it: `growth --token T missions list`
 * is `growth missions list --token T`, and so are `--base-url`, `--profile` and `--json`.
 *
 * They are declared on the program (and, hidden, on every group in between, so `growth missions
 * --json list` works too) and handed, before the command runs, to the command that runs. A command
 * that does not take one refuses it by name. Given both before and after the command, the one
 * nearer the command wins.
 */
function globalOptions(): Option[] {
  return [...credentialOptions(), new Option(...JSON_FLAG)]
}

export function shareGlobalOptions(program: Command): void {
  // The options added here, by command: they pass flags down, and are no option of the command itself.
  const passing = new Map<Command, Set<string>>()
  const declare = (cmd: Command, hidden: boolean) => {
    for (const option of globalOptions()) {
      if (cmd.options.some((o) => o.long === option.long)) continue
      cmd.addOption(hidden ? option.hideHelp() : option)
      passing.set(cmd, new Set([...(passing.get(cmd) ?? []), option.attributeName()]))
    }
    for (const sub of cmd.commands) if (sub.commands.length) declare(sub, true)
  }
  declare(program, false)
  program.hook('preAction', (_program, command) => handDown(command, passing.get(command) ?? new Set()))
}

/** The global flags given before `command`, set on it (unless given after it too). */
function handDown(command: Command, notItsOwn: Set<string>): void {
  const ancestors: Command[] = []
  for (let c = command.parent; c; c = c.parent) ancestors.push(c)
  for (const option of globalOptions()) {
    const key = option.attributeName()
    const given = ancestors.find((a) => a.getOptionValueSource(key) === 'cli') ?? (notItsOwn.has(key) && command.getOptionValueSource(key) === 'cli' ? command : undefined)
    if (!given) continue
    if (!command.options.some((o) => o.attributeName() === key) || notItsOwn.has(key)) {
      throw new CliError(`${option.long} does not apply to growth ${pathOf(command)} (see growth ${pathOf(command)} --help)`)
    }
    if (command.getOptionValueSource(key) !== 'cli') command.setOptionValueWithSource(key, given.getOptionValue(key), 'cli')
  }
}

function pathOf(command: Command): string {
  const words: string[] = []
  for (let c: Command | null = command; c?.parent; c = c.parent) words.unshift(c.name())
  return words.join(' ')
}
