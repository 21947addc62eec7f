import type { Event } from '@growth-service/sdk'
import { newId } from '../../../server/src/core/ids.ts'
import { sampleEvent, sampleType } from '../../../server/src/domain/event-samples.ts'
import { CliError } from '../errors.ts'
import { writeErr } from '../output.ts'
import { forward, forwardTarget, type ListenOptions, readState, writeState } from './listen-forward.ts'

/**
 * growth listen --forward-to URL --trigger TYPE: one sample of an event type posted to the local
 * receiver exactly as `growth listen` forwards a real event (the same headers, signed with the same
 * secret), then exit; `stripe trigger` for a receiver in development. The body is the type's example
 * in the OpenAPI document (server/src/schemas/event-examples.json) with a new event id and the time
 * now; it needs no server and no token, and nothing is recorded anywhere. A receiver that does not
 * answer 2xx makes the command fail, so a script can check its receiver with it.
 */
export async function trigger(opts: ListenOptions) {
  let type: ReturnType<typeof sampleType>
  try {
    type = sampleType(opts.trigger)
  } catch (err) {
    throw new CliError(`--trigger: ${(err as Error).message}`)
  }
  const target = forwardTarget(opts)
  const { state, secretMade } = readState()
  if (secretMade && opts.secret === undefined) {
    writeState(state)
    writeErr(`This machine's signing secret was made now: ${state.secret} (growth listen --print-secret prints it).\n`)
  }
  const sample = sampleEvent(type)
  const event = { ...sample, id: newId('event'), createdAt: new Date().toISOString() } as unknown as Event
  const { status, answer } = await forward(event, target, opts.secret ?? state.secret, Boolean(opts.json))
  if (status === undefined || status < 200 || status > 299)
    throw new CliError(`the receiver at ${target.href} did not take the sample (${status === undefined ? 'no answer' : `${status}${answer ? ` ${answer}` : ''}`})`)
}
