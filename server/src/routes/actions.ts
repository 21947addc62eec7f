import { z } from 'zod'
import { ACTION_STATUSES } from '../core/enums.ts'
import * as actions from '../domain/actions.ts'
import { Action, CreateActionRequest } from '../schemas/actions.ts'
import { EXAMPLE } from './examples.ts'
import { defineList, defineWrite, model, SPEC_PAGE } from './operation.ts'

export const actionOperations = [
  defineList({
    method: 'GET',
    path: '/actions',
    operationId: 'listActions',
    sdk: 'actions.list',
    summary: 'List proposed changes',
    description:
      'Proposed changes, newest first, paged with meta.nextCursor: each with its kind and args, its planned effect in words and figures, whether the workspace limits allowed it, who proposed it, who decided it and what became of it. Every status when `status` is omitted.',
    tag: 'Actions',
    auth: { kind: 'workspace', scope: 'read:growth' },
    query: z.strictObject({ status: z.enum(ACTION_STATUSES).optional().describe('Only actions in this status (all when omitted).') }),
    paging: SPEC_PAGE,
    response: model('Action', Action),
    example: { query: { status: 'proposed', limit: '10' } },
    handler: ({ sql, caller, query, page }) => actions.listActions(sql, caller.workspaceId, { status: query.status, ...page }),
  }),

  defineWrite({
    method: 'POST',
    path: '/actions',
    operationId: 'createAction',
    sdk: 'actions.create',
    summary: 'Propose a change',
    description:
      "Propose a change for a person to approve. It is planned (its effect in words and figures) and checked against the workspace's limits, the same limits the agent gateway applies: a proposal they refuse is recorded as `refused` with the reason (201); any other waits as `proposed`. Nothing here approves or carries out a change; a person does. An unknown kind is 400 listing the kinds; a bad arg is 400 naming it; an id in args not in this workspace is 404; a record whose state refuses the change (e.g. pausing a paused campaign) is 409.",
    tag: 'Actions',
    auth: { kind: 'workspace', scope: 'write:actions' },
    body: model('CreateActionRequest', CreateActionRequest),
    response: model('Action', Action),
    rules: [
      { description: 'adjust_budget: the campaign has a daily budget, not zero, in the currency of args.dailyBudget, and the change leaves a budget that differs from today\'s.', message: /no daily budget to adjust|a change from zero|budgets are never converted|would leave no daily budget|nothing would change/ },
      { description: 'send_campaign: the campaign is an email or SMS campaign, sendAt is in the future, and the audience holds someone who can be contacted.', message: /only email and SMS campaigns are sent|is in the past|the send would reach no one/ },
      { description: 'create_discount: expiresAt is in the future.', message: /is not in the future/ },
      { description: 'sendAt and expiresAt fall on or before 9999-12-31T23:59:59Z (in UTC).', message: /is after 9999-12-31T23:59:59Z/ },
      { description: 'tag_contacts: the audience holds contacts.', message: /holds no contacts to tag/ },
      { description: 'A segment used as an audience is one this service can evaluate (conditions on tags).', message: /cannot evaluate; use a list/ },
    ],
    example: { body: { kind: 'adjust_budget', args: { campaignId: EXAMPLE.campaign, changePercent: 15 } } },
    handler: ({ tx, caller, body }) => actions.proposeAction(tx, caller.workspaceId, body, { kind: 'api', id: caller.credentialId, name: 'API' }),
  }),
]
