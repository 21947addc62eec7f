import { z } from 'zod'
import * as growth from '../domain/growth.ts'
import { paged } from '../http/paging.ts'
import { cursorParam, idOf, limitParam } from '../schemas/common.ts'
import { CreateExperimentRequest, Decision, Experiment, Mission } from '../schemas/growth.ts'
import { defineRead, defineWrite } from './operation.ts'

const tag = 'Growth'

export const growthOperations = [
  defineRead({
    method: 'GET',
    path: '/missions',
    operationId: 'listMissions',
    summary: 'List missions',
    description: 'Every growth mission of the workspace with its measured progress and the automations working on it, newest first.',
    tag,
    auth: { kind: 'workspace', scope: 'read:growth' },
    response: { model: { name: 'Mission', schema: Mission }, shape: 'list' },
    handler: ({ sql, caller }) => growth.listMissions(sql, caller.workspaceId),
  }),

  defineRead({
    method: 'GET',
    path: '/decisions',
    operationId: 'listDecisions',
    summary: 'List decisions',
    description: 'The decision ledger, newest first, paged with meta.nextCursor. Filter by missionId (404 if that mission is not in this workspace).',
    tag,
    auth: { kind: 'workspace', scope: 'read:growth' },
    query: z.strictObject({
      missionId: idOf('msn', 'a mission').optional().describe('Only decisions of this mission.'),
      limit: limitParam(20),
      cursor: cursorParam(),
    }),
    response: { model: { name: 'Decision', schema: Decision }, shape: 'page' },
    handler: ({ sql, caller, query }) =>
      paged({
        caller,
        list: 'decisions',
        filter: { missionId: query.missionId },
        cursor: query.cursor,
        limit: query.limit,
        fetch: (after, limit) => growth.decisionsPage(sql, caller.workspaceId, { missionId: query.missionId, after, limit }),
        positionOf: growth.decisionPosition,
        toItem: growth.toDecision,
      }),
  }),

  defineRead({
    method: 'GET',
    path: '/experiments',
    operationId: 'listExperiments',
    summary: 'List experiments',
    description: 'Every hypothesis, newest first, with the state of its test and what the test said once decided.',
    tag,
    auth: { kind: 'workspace', scope: 'read:growth' },
    response: { model: { name: 'Experiment', schema: Experiment }, shape: 'list' },
    handler: ({ sql, caller }) => growth.listExperiments(sql, caller.workspaceId),
  }),

  defineWrite({
    method: 'POST',
    path: '/experiments',
    operationId: 'createExperiment',
    summary: 'Record a hypothesis',
    description:
      'Write a hypothesis against an A/B test or an email send before its test is decided. 404 if the test, send or decision is not in this workspace; 409 conflict if the test was already decided.',
    tag,
    auth: { kind: 'workspace', scope: 'write:experiments' },
    body: { model: { name: 'CreateExperimentRequest', schema: CreateExperimentRequest } },
    response: { model: { name: 'Experiment', schema: Experiment }, shape: 'item' },
    handler: ({ tx, caller, body }) => growth.createExperiment(tx, caller.workspaceId, body),
  }),
]
