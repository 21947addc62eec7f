import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { applyPolicy, operatorDecider } from '../../../core.ts'
import { operatorLogin } from '../../../operator-login.ts'
import { JSON_FLAG } from '../../../output.ts'
import { changeLine, readPolicyFile } from './policy-file.ts'

type Options = CommonOptions & { workspace: string; plan: string; by?: string }

/** growth admin policy apply --workspace ID FILE --plan PLANID [--json] */
export function registerPolicyApply(policy: Command) {
  policy
    .command('apply')
    .description('apply a policy document in one transaction with one new rules version, only if the policy in force is still the one its plan was made against; recorded with your login and announced as agent.policy.changed')
    .argument('<file>', 'the policy document growth admin policy plan was given')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .requiredOption('--plan <id>', 'the plan id growth admin policy plan printed (plan_...)')
    .option('--by <note>', 'a note kept beside your login, which is recorded as who applied it')
    .option(...JSON_FLAG)
    .action((file: string, opts: Options) => {
      const text = readPolicyFile(file)
      const appliedBy = operatorDecider(operatorLogin(), opts.by)
      return withDatabase(opts, async ({ sql, out }) => {
        const applied = await applyPolicy(sql, opts.workspace, text, { source: file, planId: opts.plan, appliedBy })
        out.result(applied, () =>
          applied.changes.length
            ? [`Applied ${applied.changes.length} change${applied.changes.length === 1 ? '' : 's'} to workspace ${opts.workspace}; rules version ${applied.rulesVersion}:`, ...applied.changes.map(changeLine)]
            : [`No changes: ${file} is the policy in force of workspace ${opts.workspace}; rules version ${applied.rulesVersion} stays.`],
        )
      })
    })
}
