import type { Command } from 'commander'
import { withDatabase, type CommonOptions, plural } from '../../context.ts'
import { type InboxItem, waitingIn } from '../../core.ts'
import { limitOption } from '../../limit-option.ts'
import { JSON_FLAG, table } from '../../output.ts'

type Options = CommonOptions & { workspace: string; limit?: string }

/** One line's cells: its id, what it is, since when it waits, until when, and what it asks. */
function row(item: InboxItem): string[] {
  if (item.kind === 'action') {
    const a = item.action
    return [a.id, 'proposed change', a.createdAt, '', `${a.proposedBy.name}: ${a.kind}: ${a.plannedEffect.summary}`]
  }
  const { approval: a, asked, send } = item
  const what = asked
    ? `${asked.agentName}: ${asked.tool}.${asked.action}${asked.resource ? ` on ${asked.resource}` : ''}: ${asked.summary ?? a.summary}`
    : send
      ? `${a.requestedBy}: send "${send.subject}" to ${send.recipients.toLocaleString('en-US')} recipient${send.recipients === 1 ? '' : 's'}`
      : `${a.requestedBy}: ${a.summary}`
  return [a.id, asked ? 'agent request' : 'send', a.createdAt, a.expiresAt ?? '', what]
}

/** growth admin inbox --workspace ID [--limit N]: what waits for a person, and the commands that decide it. */
export function registerInbox(admin: Command) {
  admin
    .command('inbox')
    .description("what waits for a person in a workspace, oldest first: agents' requests and sends needing approval, and proposed changes (the console's inbox)")
    .requiredOption('--workspace <id>', 'the workspace (ws_...)')
    .option('--limit <n>', 'how many, 1 to 500', '50')
    .option(...JSON_FLAG)
    .action((opts: Options) => {
      const limit = limitOption(opts.limit ?? '50', 500)
      return withDatabase(opts, async ({ sql, out }) => {
        const r = await waitingIn(sql, opts.workspace, limit)
        out.result(r, () => {
          if (r.items.length === 0) return `Nothing waits for a person in workspace ${opts.workspace}.`
          const kinds = new Set(r.items.map((i) => i.kind))
          return [
            `${r.more ? `The ${plural(r.items.length, 'oldest item')}` : plural(r.items.length, 'item')} waiting for a person in workspace ${opts.workspace}, oldest first:`,
            ...table([['ID', 'KIND', 'WAITING SINCE', 'EXPIRES', 'WHAT'], ...r.items.map(row)]),
            ...(r.more ? [`More wait: --limit ${Math.min(500, limit * 2)} shows more, or see the console's inbox.`] : []),
            ...(kinds.has('approval') ? ['Decide a request or send: growth admin approval approve|reject apr_... [--reason TEXT]'] : []),
            ...(kinds.has('action') ? ['Decide a proposed change: growth admin action approve|reject act_... [--reason TEXT]'] : []),
          ]
        })
      })
    })
}
