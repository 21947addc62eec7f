import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { type PolicyPlan, planPolicy, sameRuleNotes } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'
import { changeLine, readPolicyFile, shellWord } from './policy-file.ts'

type Options = CommonOptions & { workspace: string; since: string }

/** The backtest for people: each request whose decision would change, then the counts. */
function backtestLines(b: PolicyPlan['backtest']): string[] {
  const head = `Backtest since ${b.since}: ${b.requests} recorded request${b.requests === 1 ? '' : 's'} decided again, ${b.changed.length} would be decided otherwise.`
  return [head, ...b.changed.map((c) => `  ${c.sentence}`)]
}

/** growth admin policy plan --workspace ID FILE [--since 7d] [--json] */
export function registerPolicyPlan(policy: Command) {
  policy
    .command('plan')
    .description('check a policy document against the workspace and print every change it would make, in sentences, and the backtest of it over the recorded agent requests; applies nothing')
    .argument('<file>', 'the policy document, YAML or JSON (as growth admin policy export prints it)')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option('--since <duration>', 'how far back the backtest decides recorded requests again: 30m, 24h, 7d', '7d')
    .option(...JSON_FLAG)
    .action((file: string, opts: Options) => {
      const text = readPolicyFile(file)
      return withDatabase(opts, async ({ sql, out }) => {
        const plan = await planPolicy(sql, opts.workspace, text, { source: file, since: opts.since })
        out.result(plan, () => {
          if (!plan.changes.length) {
            return [`No changes: ${file} is the policy in force of workspace ${opts.workspace} (rules version ${plan.rulesVersion.from}).`, ...backtestLines(plan.backtest)]
          }
          const n = plan.changes.length
          return [
            `${n} change${n === 1 ? '' : 's'} to workspace ${opts.workspace} (rules version ${plan.rulesVersion.from} -> ${plan.rulesVersion.to}):`,
            ...plan.changes.map(changeLine),
            ...sameRuleNotes(plan.changes, 'growth admin policy export prints the rules with their ids'),
            ...backtestLines(plan.backtest),
            `To apply: growth admin policy apply --workspace ${opts.workspace} ${shellWord(file)} --plan ${plan.planId}`,
          ]
        })
      })
    })
}
