import type { Command } from 'commander'
import { operatorAuditActor, withDatabase, type CommonOptions } from '../../../context.ts'
import { retireAgent } from '../../../core.ts'
import { CliError } from '../../../errors.ts'
import { JSON_FLAG } from '../../../output.ts'

/**
 * growth admin agent retire ID --workspace ID: retire an agent (the console's Retire): its
 * credentials are revoked at once, it is listed apart from the active agents, its history is kept.
 */
export function registerAgentRetire(agent: Command) {
  agent
    .command('retire')
    .description('retire an agent: its credentials revoked at once, its history kept')
    .argument('<id>', 'the agent (agt_...)')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions & { workspace: string }) =>
      withDatabase(opts, async ({ sql, out }) => {
        if (!id.startsWith('agt_')) throw new CliError(`the agent id starts with agt_; got ${JSON.stringify(id)}`)
        const r = await retireAgent(sql, opts.workspace, id, operatorAuditActor())
        out.result(r, () =>
          r.alreadyRetired ? `Agent ${r.id} was already retired; nothing changed.` : `Retired agent ${r.id}; revoked ${r.revokedCredentials.length ? r.revokedCredentials.join(', ') : 'no credential'}`,
        )
      }),
    )
}
