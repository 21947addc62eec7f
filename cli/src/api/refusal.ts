import { ConnectionError, GrowthError } from '@growth-service/sdk'
import { ApiRefusal, CliError } from '../errors.ts'

/** A refusal of the API for handleError: exit 1 with its code, message and request id; no answer at all: exit 2. */
export function refusalOf(err: unknown, json: boolean): unknown {
  if (err instanceof ConnectionError) return new Error(`${err.message} Is the server running there? (--base-url, GROWTH_BASE_URL or the profile)`)
  if (err instanceof GrowthError && err.status !== undefined) {
    return new ApiRefusal({ code: String(err.code ?? 'unknown'), message: err.message, requestId: err.requestId ?? null }, err.status, json)
  }
  if (err instanceof CliError && json) return new ApiRefusal({ code: 'invalid_request', message: err.message, requestId: null }, undefined, json)
  return err
}
