import { EVENT_TYPES, type EventType } from '../core/event-types.ts'
import { RuleError } from '../core/errors.ts'
import EXAMPLES from '../schemas/event-examples.json'

/**
 * Samples of any event type, as `stripe trigger` sends them: the `data` of the type's example in
 * the OpenAPI document (server/src/schemas/event-examples.json, captured from real emissions), so
 * a receiver can be tried on every type before the real thing happens. Without a type, the test
 * event.
 */
export function sampleType(text: string | undefined): EventType {
  if (text === undefined) return 'webhook.test'
  const type = text.trim()
  if (!(EVENT_TYPES as readonly string[]).includes(type)) throw new RuleError('event.known', `Unknown event type ${JSON.stringify(text)}; the types are ${EVENT_TYPES.join(', ')}.`, 'event')
  return type as EventType
}

type Sample = { id: string; event: EventType; createdAt: string; workspaceId: string; data: Record<string, unknown> }

/** The sample event of a type, its example whole (a copy: the caller may change it). */
export function sampleEvent(type: EventType): Sample {
  return structuredClone((EXAMPLES as Record<EventType, Sample>)[type])
}
