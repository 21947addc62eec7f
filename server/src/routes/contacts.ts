import { importContacts } from '../domain/contacts.ts'
import { ContactImport, ImportContactsRequest } from '../schemas/contacts.ts'
import { EXAMPLE } from './examples.ts'
import { defineWrite, model } from './operation.ts'

export const contactOperations = [
  defineWrite({
    method: 'POST',
    path: '/contacts',
    operationId: 'importContacts',
    sdk: 'contacts.import',
    summary: 'Add or update contacts',
    description:
      "Up to 100 contacts a request, as an import does it: addresses are compared without regard to case; an address on the do-not-contact list is skipped; tags are merged; an existing contact keeps every field the request does not send. The answer says, per contact by its index, whether it was created, updated or skipped and why, and the totals. With listId (404 if not in this workspace) the contacts join that list. New contacts must fit the plan's contacts allowance: otherwise 402 plan_required naming what remains, and nothing is written.",
    tag: 'Contacts',
    auth: { kind: 'workspace', scope: 'write:contacts' },
    body: model('ImportContactsRequest', ImportContactsRequest),
    response: model('ContactImport', ContactImport),
    rules: [{ description: 'Each address at most once in a request, compared without regard to case.', message: /are the same address/ }],
    example: {
      body: {
        listId: EXAMPLE.list,
        contacts: [
          { email: 'ana.garcia@gmail.com', firstName: 'Ana', lastName: 'García', tags: ['eu', 'espresso'] },
          { email: 'Olivia.Bennett@gmail.com', phone: '+1 503-555-0142', tags: ['vip'] },
        ],
      },
    },
    handler: ({ tx, caller, body }) => importContacts(tx, caller.workspaceId, body),
  }),
]
