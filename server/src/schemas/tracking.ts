import { z } from 'zod'
import { codePoints, Email, TEXT } from './common.ts'

const PlainValue = z.union([z.string().max(1000).regex(TEXT), z.number(), z.boolean(), z.null()], {
  error: 'must be a string (at most 1000 characters), a number, a boolean or null',
})

export const TrackRequest = z
  .strictObject({
    event: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be 1 to 64 letters, digits, dots, dashes and underscores' })
      .describe('The event name: 1 to 64 letters, digits, dots, dashes and underscores; capitals are ignored.'),
    email: Email.describe('The address of a contact of this workspace.'),
    properties: z
      .record(z.string(), PlainValue)
      .superRefine((p, ctx) => {
        const names = Object.keys(p)
        if (names.length > 20) ctx.addIssue({ code: 'custom', message: `must hold at most 20 values (got ${names.length})` })
        // Lengths in code points, as the document (JSON Schema, propertyNames) counts them: an emoji is one.
        const bad = names.find((n) => n.length < 1 || codePoints(n) > 64 || !TEXT.test(n))
        if (bad !== undefined) ctx.addIssue({ code: 'custom', message: `names must be 1 to 64 characters without NUL (got ${JSON.stringify(bad.slice(0, 80))})` })
      })
      .meta({ maxProperties: 20, propertyNames: { minLength: 1, maxLength: 64, pattern: TEXT.source } })
      .optional()
      .describe('At most 20 named plain values (string, number, boolean or null), kept with each run the event starts.'),
  })
  .describe('Something a contact did in your own systems.')

export const TrackResult = z
  .object({
    event: z.string().describe('The event name, lower-cased.'),
    contactId: z.string().describe('The contact (ctc_...) the event was tracked for.'),
    workflowsStarted: z.number().int().describe('How many workflow runs the event started; 0 when no active workflow listens for it.'),
    runs: z
      .array(z.object({ id: z.string().describe('run_...'), workflowId: z.string().describe('wf_...'), workflowName: z.string().describe('The workflow, as people know it.') }))
      .describe('The runs started, one per active workflow listening for the event.'),
  })
  .describe('What a tracked event started.')

export type TrackInput = z.output<typeof TrackRequest>
export type TrackResult = z.infer<typeof TrackResult>
