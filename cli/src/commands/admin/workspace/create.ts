import { Option, type Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../../context.ts'
import { createWorkspace, PLANS } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

type Options = CommonOptions & { name: string; plan: string }

/** growth admin workspace create --name NAME [--plan starter|growth|scale] */
export function registerWorkspaceCreate(workspace: Command) {
  workspace
    .command('create')
    .description('create a workspace')
    .requiredOption('--name <name>', 'the workspace name, as people see it')
    .addOption(new Option('--plan <plan>', 'the plan').choices(PLANS).default('growth'))
    .option(...JSON_FLAG)
    .action((opts: Options) =>
      withDatabase(opts, async ({ sql, out }) => {
        const ws = await createWorkspace(sql, { name: opts.name, plan: opts.plan })
        out.result(ws, () => `Created workspace ${ws.id} "${ws.name}" on plan ${ws.plan}`)
        out.note(`Next: growth admin token create --workspace ${ws.id}`)
      }, { reportMigration: true, createsDatabase: true }),
    )
}
