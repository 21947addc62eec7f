import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { exportPolicy, policyYaml } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

type Options = CommonOptions & { workspace: string }

/** growth admin policy export --workspace ID [--json] */
export function registerPolicyExport(policy: Command) {
  policy
    .command('export')
    .description("the workspace's agent policy in force (tools, agents' permissions, rules) as YAML, or JSON with --json")
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const policy = await exportPolicy(sql, opts.workspace)
        out.result(policy, () => policyYaml(policy).trimEnd())
      }),
    )
}
