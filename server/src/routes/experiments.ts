import * as experiments from '../domain/experiments.ts'
import { CreateExperimentRequest, Experiment } from '../schemas/experiments.ts'
import { EXAMPLE } from './examples.ts'
import { CAPPED_LIST, defineList, defineWrite, model } from './operation.ts'

export const experimentOperations = [
  defineList({
    method: 'GET',
    path: '/experiments',
    operationId: 'listExperiments',
    sdk: 'experiments.list',
    summary: 'List experiments',
    description: 'Every hypothesis, newest first, with the state of its test and what the test said once decided.',
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'read:growth' },
    paging: CAPPED_LIST,
    response: model('Experiment', Experiment),
    example: { query: { limit: '10' } },
    handler: ({ sql, caller, page }) => experiments.listExperiments(sql, caller.workspaceId, page),
  }),

  defineWrite({
    method: 'POST',
    path: '/experiments',
    operationId: 'createExperiment',
    sdk: 'experiments.create',
    summary: 'Record a hypothesis',
    description:
      'Write a hypothesis against an A/B test or an email send before its test is decided. The subject and the expectation fit the kind: an A/B test (abt_...) shows a_better, b_better or no_difference; a hold-back of a send (snd_...) shows send_adds or no_difference. 404 if the test, send or decision is not in this workspace; 409 conflict if the test was already decided.',
    tag: 'Growth',
    auth: { kind: 'workspace', scope: 'write:experiments' },
    body: model('CreateExperimentRequest', CreateExperimentRequest),
    response: model('Experiment', Experiment),
    example: {
      body: {
        hypothesis: 'Naming the roast in the subject line lifts opens.',
        kind: 'email_ab_test',
        subjectId: EXAMPLE.abTest,
        expectation: 'a_better',
        decisionId: EXAMPLE.decision,
      },
    },
    handler: ({ tx, caller, body }) => experiments.createExperiment(tx, caller.workspaceId, body),
  }),
]
