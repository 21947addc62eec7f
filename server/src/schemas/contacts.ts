import { z } from 'zod'
import { Email, idOf, Timestamp } from './common.ts'

export const Contact = z
  .object({
    id: z.string().describe('ctc_...'),
    email: z.string().describe('The address as first given; compared without regard to case.'),
    name: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    company: z.string().nullable(),
    phone: z.string().nullable(),
    tags: z.array(z.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .describe('A person who agreed to hear from the business.')

const text = (max: number, what: string) => z.string().trim().min(1).max(max).optional().describe(what)

export const ContactInput = z.strictObject({
  email: Email.describe('The address; compared without regard to case.'),
  name: text(200, 'Full name.'),
  firstName: text(100, 'First name.'),
  lastName: text(100, 'Last name.'),
  company: text(200, 'Company.'),
  phone: text(50, 'Phone number, as written.'),
  tags: z.array(z.string().trim().min(1).max(64)).max(50).optional().describe('Merged with the tags the contact already has.'),
})

export const ImportContactsRequest = z
  .strictObject({
    contacts: z.array(ContactInput).min(1).max(100).describe('1 to 100 contacts; each address at most once (compared without regard to case).'),
    listId: idOf('lst', 'a list').optional().describe('A list of this workspace to put the contacts on (not those skipped).'),
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

export type ContactT = z.infer<typeof Contact>
export type ImportContactsInput = z.infer<typeof ImportContactsRequest>
export type ContactImportT = z.infer<typeof ContactImport>
