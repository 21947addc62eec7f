import { readFileSync } from 'node:fs'
import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { documentPolicy, parsePolicyCases, type PolicyCase, testPolicy } from '../../../core.ts'
import { CliError, ResultFailed } from '../../../errors.ts'
import { JSON_FLAG } from '../../../output.ts'
import { readPolicyFile } from './policy-file.ts'

type Options = CommonOptions & { workspace: string; cases: string }

/** The cases file's text; a file that cannot be read is named with why. */
function readCases(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    throw new CliError(`--cases ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
}

const failingOf = (names: string[]) => (names.length ? names.join(', ') : 'none')

/**
 * One line per case: `ok   name: allowed`, or `FAIL name: expected allowed, got requires_approval
 * (failing: rules): Needs a person's approval: ...`. The failing checks are shown whenever a case
 * names them or any failed; a failed case ends with the gateway's reason, which says what to change.
 */
function lineOf(c: PolicyCase, r: { got: string; failing: string[]; ok: boolean; reason: string }): string {
  const got = `${r.got}${r.failing.length ? ` (failing: ${failingOf(r.failing)})` : ''}`
  if (r.ok) return `ok   ${c.name}: ${got}`
  const expected = `${c.expect}${c.failing ? ` (failing: ${failingOf(c.failing)})` : ''}`
  return `FAIL ${c.name}: expected ${expected}, got ${r.got} (failing: ${failingOf(r.failing)}): ${r.reason}`
}

/** growth admin policy test --workspace ID [FILE] --cases CASES [--json] */
export function registerPolicyTest(policy: Command) {
  policy
    .command('test')
    .description('decide each case of a file (agent, tool, action, facts -> expected decision and failing checks) under a policy document or the policy in force, with the workspace\'s limits and stop switch, recording nothing; exit 1 when any case fails')
    .argument('[file]', 'a policy document (YAML or JSON) to test instead of the policy in force; checked as growth admin policy plan checks it, applied nowhere')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--cases <file>', 'the cases, YAML or JSON: a list of { name, agent, tool, action, resource?, facts?, expect, failing? }, or { cases: [...] }')
    .option(...JSON_FLAG)
    .action((file: string | undefined, opts: Options) => {
      const text = file === undefined ? undefined : readPolicyFile(file)
      const read = parsePolicyCases(readCases(opts.cases), opts.cases)
      const cases = read.cases
      return withDatabase(opts, async ({ sql, out }) => {
        const policy = text === undefined ? undefined : await documentPolicy(sql, opts.workspace, text, file!)
        const r = await testPolicy(sql, opts.workspace, read, { policy })
        const under = file === undefined ? `the policy in force of workspace ${opts.workspace}` : `${file}, with the limits and stop switch of workspace ${opts.workspace}`
        // --json keeps the contract's case shape: { name, expected, got, failing, ok }.
        const json = { ...r, cases: r.cases.map(({ reason: _, ...c }) => c) }
        out.result(json, () => [
          ...r.cases.map((c, i) => lineOf(cases[i]!, c)),
          `${r.failed ? 'FAIL' : 'ok'}: ${r.passed} passed, ${r.failed} failed, under ${under}; nothing was recorded.`,
        ])
        if (r.failed) throw new ResultFailed()
      })
    })
}
