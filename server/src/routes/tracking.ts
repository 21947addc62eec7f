import { track } from '../domain/tracking.ts'
import { TrackRequest, TrackResult } from '../schemas/tracking.ts'
import { defineWrite, model } from './operation.ts'

export const trackingOperations = [
  defineWrite({
    method: 'POST',
    path: '/track',
    operationId: 'trackEvent',
    sdk: 'track',
    summary: 'Track an event',
    description:
      "Report something a contact did in your own systems. It starts every active workflow listening for the event (compared without regard to capitals), one run each keeping the properties, and says how many it started (0 when none listens). The email must be a contact of this workspace (404). Each tracked event counts against the plan's trackedEvents allowance (402 plan_required past it).",
    tag: 'Contacts',
    auth: { kind: 'workspace', scope: 'write:events' },
    body: model('TrackRequest', TrackRequest),
    response: model('TrackResult', TrackResult),
    example: { body: { event: 'checkout.abandoned', email: 'olivia.bennett@gmail.com', properties: { cartValueMinor: 6400, currency: 'USD', step: 'shipping' } } },
    handler: ({ tx, caller, body }) => track(tx, caller.workspaceId, body),
  }),
]
