import { z } from 'zod'
import * as events from '../domain/events.ts'
import { Event, EventTypeSchema } from '../schemas/events.ts'
import { defineList, model } from './operation.ts'

export const eventOperations = [
  defineList({
    method: 'GET',
    path: '/events',
    operationId: 'listEvents',
    sdk: 'events.list',
    summary: 'Poll events',
    description:
      'The events a webhook can subscribe to, oldest first, in commit order. Pass `after` = the meta.nextCursor of the previous answer: every page that holds events carries meta.nextCursor (the position of its last event), and an empty page answers the cursor it was given, so a consumer polling from its last cursor sees every event exactly once, in order, including events committed while it was paging. Fewer events than `limit` means it has caught up. Filter with `type` (the cursor is bound to the filter).',
    tag: 'Events',
    auth: { kind: 'workspace', scope: 'read:events' },
    query: z.strictObject({ type: EventTypeSchema.optional().describe('Only events of this type.') }),
    paging: { style: 'stream', defaultLimit: 20, maxLimit: 100 },
    response: model('Event', Event),
    example: { query: { type: 'action.applied', limit: '50' } },
    handler: ({ sql, caller, query, page }) => events.listEvents(sql, caller.workspaceId, { type: query.type, after: page.after as number | undefined, limit: page.limit }),
  }),
]
