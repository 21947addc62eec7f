import { z } from 'zod'
import * as actions from '../domain/actions.ts'
import { paged } from '../http/paging.ts'
import { Action, ACTION_STATUSES, CreateActionRequest } from '../schemas/actions.ts'
import { cursorParam, limitParam } from '../schemas/common.ts'
import { defineRead, defineWrite } from './operation.ts'

const tag = 'Actions'

export const actionOperations = [
  defineRead({
    method: 'GET',
    path: '/actions',
    operationId: 'listActions',
    summary: 'List proposed changes',
    description:
      'Proposed changes, newest first, paged with meta.nextCursor: each with its kind and args, its planned effect in words and figures, whether the workspace limits allowed it, who proposed it, who decided it and what became of it. Every status when `status` is omitted.',
    tag,
    auth: { kind: 'workspace', scope: 'read:growth' },
    query: z.strictObject({
      status: z.enum(ACTION_STATUSES).optional().describe('Only actions in this status (all when omitted).'),
      limit: limitParam(20),
      cursor: cursorParam(),
    }),
    response: { model: { name: 'Action', schema: Action }, shape: 'page' },
    handler: ({ sql, caller, query }) =>
      paged({
        caller,
        list: 'actions',
        filter: { status: query.status },
        cursor: query.cursor,
        limit: query.limit,
        fetch: (after, limit) => actions.actionsPage(sql, caller.workspaceId, { status: query.status, after, limit }),
        positionOf: actions.actionPosition,
        toItem: actions.toAction,
      }),
  }),

  defineWrite({
    method: 'POST',
    path: '/actions',
    operationId: 'createAction',
    summary: 'Propose a change',
    description:
      "Propose a change for a person to approve. It is planned (its effect in words and figures) and checked against the workspace's limits, the same limits the agent gateway applies: a proposal they refuse is recorded as `refused` with the reason; any other waits as `proposed`. Nothing here approves or carries out a change; a person does, with `growth admin action approve|reject`. An unknown kind is 400 listing the kinds; a bad arg is 400 naming it; an id in args not in this workspace is 404; a record whose state refuses the change (e.g. pausing a paused campaign) is 409.",
    tag,
    auth: { kind: 'workspace', scope: 'write:actions' },
    body: { model: { name: 'CreateActionRequest', schema: CreateActionRequest } },
    response: { model: { name: 'Action', schema: Action }, shape: 'item' },
    handler: ({ tx, caller, body }) => actions.proposeAction(tx, caller.workspaceId, body, { kind: 'api', id: caller.credentialId, name: 'API' }),
  }),
]
