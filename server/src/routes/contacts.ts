import { importContacts } from '../domain/contacts.ts'
import { track } from '../domain/tracking.ts'
import { ContactImport, ImportContactsRequest } from '../schemas/contacts.ts'
import { TrackRequest, TrackResult } from '../schemas/tracking.ts'
import { defineWrite } from './operation.ts'

export const contactOperations = [
  defineWrite({
    method: 'POST',
    path: '/contacts',
    operationId: 'importContacts',
    summary: 'Add or update contacts',
    description:
      "Up to 100 contacts a request, as an import does it: addresses are compared without regard to case (the same address twice in one request is 400 naming both indexes); an address on the do-not-contact list is skipped; tags are merged; an existing contact keeps every field the request does not send. The answer says, per contact by its index, whether it was created, updated or skipped and why, and the totals. With listId (404 if not in this workspace) the contacts join that list. New contacts must fit the plan's contacts allowance: otherwise 402 plan_required naming what remains, and nothing is written.",
    tag: 'Contacts',
    auth: { kind: 'workspace', scope: 'write:contacts' },
    body: { model: { name: 'ImportContactsRequest', schema: ImportContactsRequest } },
    response: { model: { name: 'ContactImport', schema: ContactImport }, shape: 'item' },
    handler: ({ tx, caller, body }) => importContacts(tx, caller.workspaceId, body),
  }),

  defineWrite({
    method: 'POST',
    path: '/track',
    operationId: 'trackEvent',
    summary: 'Track an event',
    description:
      "Report something a contact did in your own systems. It starts every active workflow listening for the event (compared without regard to capitals), one run each keeping the properties, and says how many it started (0 when none listens). The email must be a contact of this workspace (404). Each tracked event counts against the plan's trackedEvents allowance (402 plan_required past it).",
    tag: 'Contacts',
    auth: { kind: 'workspace', scope: 'write:events' },
    body: { model: { name: 'TrackRequest', schema: TrackRequest } },
    response: { model: { name: 'TrackResult', schema: TrackResult }, shape: 'item' },
    handler: ({ tx, caller, body }) => track(tx, caller.workspaceId, body),
  }),
]
