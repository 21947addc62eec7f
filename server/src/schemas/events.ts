import { z } from 'zod'
import { EVENT_CATALOGUE, EVENT_TYPES } from '../core/event-types.ts'
import { Timestamp } from './common.ts'

const catalogue = Object.entries(EVENT_CATALOGUE)
  .map(([type, what]) => `- \`${type}\`: ${what}`)
  .join('\n')

export const EventTypeSchema = z.enum(EVENT_TYPES).describe(`The event type. The catalogue:\n${catalogue}`)

export const Event = z
  .object({
    id: z.string().describe('evt_...'),
    event: EventTypeSchema,
    createdAt: Timestamp,
    workspaceId: z.string().describe('The workspace (ws_...) the event belongs to.'),
    data: z.record(z.string(), z.unknown()).describe('The record the event is about, under its name (e.g. data.action, data.contact, data.run).'),
  })
  .describe('Something that happened in the workspace, as polled from GET /events and as a webhook delivery body.')

export type Event = z.infer<typeof Event>
