import type { Command } from 'commander'
import { withDatabase, type CommonOptions } from '../../context.ts'
import { actorText, AUDIT_KINDS, listAudit } from '../../core.ts'
import { limitOption } from '../../limit-option.ts'
import { JSON_FLAG, oneLine } from '../../output.ts'

type Options = CommonOptions & { workspace: string; limit?: string; kind?: string; who?: string; subject?: string }

/** growth admin audit --workspace ID [--limit N] [--kind KIND] [--who ID] [--subject ID] */
export function registerAudit(admin: Command) {
  admin
    .command('audit')
    .description('who did what in a workspace, newest first: sign-ins, decisions, stops, policy, tokens, agents, webhook endpoints, people')
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option('--limit <n>', 'how many entries, 1 to 1000', '50')
    .option('--kind <kind>', `only entries of this kind: ${Object.keys(AUDIT_KINDS).join(', ')}`)
    .option('--who <id>', "only what this one did: a person's id (per_...), operator (the CLI's operators) or system (the service)")
    .option('--subject <id>', 'only entries about this id (an agent, token, endpoint, person, approval...)')
    .option(...JSON_FLAG)
    .action((opts: Options) => {
      const limit = limitOption(opts.limit ?? '50')
      return withDatabase(opts, async ({ sql, out }) => {
        const r = await listAudit(sql, opts.workspace, limit, undefined, { kind: opts.kind, who: opts.who, subject: opts.subject })
        out.result({ entries: r.entries }, () =>
          r.entries.length === 0
            ? opts.kind || opts.who || opts.subject
              ? `Nothing recorded in workspace ${opts.workspace} matches this filter.`
              : `Nothing recorded yet in workspace ${opts.workspace}.`
            : r.entries.map((e) => {
                const who = actorText(e.actor)
                // One line an entry: a reason a person wrote over several lines (the console's is a
                // text area) has its breaks as escapes, so it cannot start a line that reads as an entry;
                // a detail with no value (an approval without a reason) is left out, not `reason=null`.
                const detail = Object.entries(e.detail)
                  .filter(([, v]) => v !== null && v !== undefined)
                  .map(([k, v]) => `${k}=${oneLine(typeof v === 'string' ? v : JSON.stringify(v))}`)
                  .join(' ')
                return `${e.at}  ${who}  ${e.action} ${e.subject}${detail ? `  ${detail}` : ''}`
              }),
        )
      })
    })
}
