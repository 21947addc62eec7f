import { z } from 'zod'
import { Email, idOf, text, Timestamp } from './common.ts'

export const Contact = z
  .object({
    id: z.string().describe('ctc_...'),
    email: z.string().describe('The address as first given; compared without regard to case.'),
    name: z.string().nullable().describe('Full name.'),
    firstName: z.string().nullable().describe('First name.'),
    lastName: z.string().nullable().describe('Last name.'),
    company: z.string().nullable().describe('Company.'),
    phone: z.string().nullable().describe('Phone number, as written.'),
    tags: z.array(z.string()).describe('Its tags, in the order they were added.'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .describe('A person who agreed to hear from the business.')

const field = (max: number, what: string) => text(1, max).optional().describe(what)

const ContactFields = z
  .strictObject({
    email: Email.describe('The address; compared without regard to case.'),
    name: field(200, 'Full name.'),
    firstName: field(100, 'First name.'),
    lastName: field(100, 'Last name.'),
    company: field(200, 'Company.'),
    phone: field(50, 'Phone number, as written.'),
    tags: z.array(text(1, 64)).max(50).optional().describe('Merged with the tags the contact already has.'),
  })
  .describe('A contact to add or update.')

export const ImportContactsRequest = z
  .strictObject({
    contacts: z.array(ContactFields).min(1).max(100).describe('1 to 100 contacts; each address at most once (compared without regard to case).'),
    listId: idOf('list', 'a list').optional().describe('A list of this workspace to put the contacts on (not those skipped).'),
  })
  .describe('Contacts to add or update, as an import does it.')

export const ContactImport = z
  .object({
    results: z
      .array(
        z.object({
          index: z.number().int().describe('The position of the contact in the request.'),
          email: z.string().describe('The address as sent.'),
          status: z.enum(['created', 'updated', 'skipped']).describe('What became of it.'),
          contactId: z.string().nullable().describe('The contact, unless it was skipped for being on the do-not-contact list.'),
          reason: z
            .object({
              code: z.enum(['do_not_contact', 'unchanged']).describe('A stable code for the reason.'),
              message: z.string().describe('The reason, for people.'),
            })
            .nullable()
            .describe('Why it was skipped: the address is on the do-not-contact list, or nothing in the request differs from the contact.'),
        }),
      )
      .describe('One entry per contact sent, in the order sent.'),
    totals: z
      .object({
        created: z.number().int().describe('Contacts created.'),
        updated: z.number().int().describe('Existing contacts updated.'),
        skipped: z.number().int().describe('Contacts skipped, each with its reason.'),
      })
      .describe('How many of each.'),
    listId: z.string().nullable().describe('The list the contacts were put on, if one was given.'),
  })
  .describe('What became of each contact of an import, by its index, and the totals.')

export type Contact = z.infer<typeof Contact>
export type ImportContactsInput = z.output<typeof ImportContactsRequest>
export type ContactImport = z.infer<typeof ContactImport>
