import { z } from 'zod'
import * as events from '../domain/events.ts'
import { streamed } from '../http/paging.ts'
import { limitParam } from '../schemas/common.ts'
import { Event, EventType } from '../schemas/events.ts'
import { defineRead } from './operation.ts'

export const eventOperations = [
  defineRead({
    method: 'GET',
    path: '/events',
    operationId: 'listEvents',
    summary: 'Poll events',
    description:
      'The events a webhook can subscribe to, oldest first, in commit order. Pass `after` = the meta.nextCursor of the previous answer: every page that holds events carries meta.nextCursor (the position of its last event), and an empty page answers the cursor it was given, so a consumer polling from its last cursor sees every event exactly once, in order, including events committed while it was paging. Fewer events than `limit` means it has caught up. Filter with `type` (the cursor is bound to the filter).',
    tag: 'Events',
    auth: { kind: 'workspace', scope: 'read:events' },
    query: z.strictObject({
      type: EventType.optional().describe('Only events of this type.'),
      limit: limitParam(20),
      after: z.string().min(1).optional().describe('The meta.nextCursor of the previous answer; from the first event when omitted.'),
    }),
    response: { model: { name: 'Event', schema: Event }, shape: 'page' },
    handler: ({ sql, caller, query }) =>
      streamed({
        caller,
        list: 'events',
        filter: { type: query.type },
        after: query.after,
        cursorParam: 'after',
        limit: query.limit,
        fetch: (afterSeq: number | undefined, limit) => events.eventsAfter(sql, caller.workspaceId, { type: query.type, afterSeq, limit }),
        positionOf: events.eventPosition,
        toItem: (row) => events.toEvent(caller.workspaceId, row),
      }),
  }),
]
