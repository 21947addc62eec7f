import type { Command } from 'commander'
import { operatorAuditActor, plural, withDatabase, type CommonOptions } from '../../../context.ts'
import { removePerson } from '../../../core.ts'
import { JSON_FLAG } from '../../../output.ts'

/** growth admin person remove ID */
export function registerPersonRemove(person: Command) {
  person
    .command('remove')
    .description('remove a person: their console sessions end at once and their sign-in links stop working')
    .argument('<id>', 'the person (per_...)')
    .option(...JSON_FLAG)
    .action((id: string, opts: CommonOptions) =>
      withDatabase(opts, async ({ sql, out }) => {
        const r = await removePerson(sql, id, { by: operatorAuditActor() })
        out.result(r, () => `Removed ${r.name} (${r.id}) from workspace ${r.workspaceId}; ended ${plural(r.sessionsEnded, 'session')}.`)
      }),
    )
}
