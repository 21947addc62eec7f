import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { describeDecider, policyHistory } from '../../../core.ts'
import { limitOption } from '../../../limit-option.ts'
import { JSON_FLAG } from '../../../output.ts'
import { changeLine } from './policy-file.ts'

type Options = CommonOptions & { workspace: string; limit: string }

/** growth admin policy history --workspace ID [--limit N] [--json] */
export function registerPolicyHistory(policy: Command) {
  policy
    .command('history')
    .description('the policies applied to the workspace, newest first: who applied each, when, the rules version it made and its changes in sentences')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option('--limit <n>', 'how many applied policies, 1 to 1000', '20')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const limit = limitOption(opts.limit)
        const history = await policyHistory(sql, opts.workspace, limit)
        const { applied } = history
        out.result(history, () =>
          applied.length === 0
            ? `No policy has been applied to workspace ${opts.workspace} yet (growth admin policy plan, then apply).`
            : applied.flatMap((a, i) => [
                ...(i ? [''] : []),
                `${a.appliedAt}  rules version ${a.rulesVersion}  by ${describeDecider(a.appliedBy)}  ${a.id}`,
                ...a.changes.map(changeLine),
              ]),
        )
      }),
    )
}
