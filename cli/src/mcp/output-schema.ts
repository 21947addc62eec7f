import { type CatalogueOperation, type JsonSchema, resolve } from '../catalogue.ts'
import { clean } from './json-schema.ts'

/**
 * Each tool's outputSchema: what its structuredContent holds, generated from the operation's
 * success data in the OpenAPI document (the catalogue's `response`), as the input schemas are from
 * its parameters and body. A client that validates (the official SDK's Client does, on every
 * tools/call whose result has structuredContent, a tool error included) checks the answer against it.
 *
 * - a workspace list tool: `{ data: [items], nextCursor, hasMore, requestId }`;
 * - a workspace read of one thing: `{ data, requestId }`;
 * - a workspace write: `{ data, simulated, idempotencyKey, replayed, requestId }`, `data` being the
 *   record written or, with a test token, the SimulatedWrite;
 * - an agent tool: the gateway's answer itself, its members at the top, with `requestId` (and the
 *   write's `idempotencyKey`);
 * - a tool error (isError), for every tool: `{ error: { code, message, requestId, ... } }`.
 *
 * The outputSchema is `anyOf` the two, each a closed object.
 */

const REQUEST_ID: JsonSchema = { type: ['string', 'null'], description: 'The API request id (req_...), for support; null when no request was answered.' }
const IDEMPOTENCY_KEY: JsonSchema = { type: 'string', description: 'The Idempotency-Key the write was sent with (one per tools/call).' }

/** The structured content of a tool error (format.ts's failure). */
const TOOL_ERROR: JsonSchema = {
  type: 'object',
  description: "Present instead of the answer when the call failed (isError): the API's refusal, an argument refused before anything was sent, or no answer.",
  properties: {
    code: { type: 'string', description: "The API's error code (not_found, forbidden, invalid_parameter, ...), or timeout, no_answer, internal." },
    message: { type: 'string', description: 'What went wrong, in a sentence.' },
    requestId: REQUEST_ID,
    status: { type: 'integer', description: "The API's HTTP status, when it answered." },
    argument: { type: 'string', description: 'The argument refused before anything was sent.' },
    idempotencyKey: { type: 'string', description: 'A write whose outcome is unknown: calling again with the same arguments reuses this key.' },
  },
  required: ['code', 'message', 'requestId'],
  additionalProperties: false,
}

type Members = { properties: Record<string, JsonSchema>; required: string[] }

function workspaceMembers(op: CatalogueOperation): Members {
  const data = clean(op.response)
  if (op.spec.kind === 'list') {
    return {
      properties: {
        data,
        nextCursor: { type: ['string', 'null'], description: 'Pass it as cursor for the next page (null: none).' },
        hasMore: { type: 'boolean', description: 'Whether another page follows.' },
        requestId: REQUEST_ID,
      },
      required: ['data', 'nextCursor', 'hasMore', 'requestId'],
    }
  }
  if (op.spec.kind === 'item') return { properties: { data, requestId: REQUEST_ID }, required: ['data', 'requestId'] }
  return {
    properties: {
      data: op.simulated ? { anyOf: [data, clean(op.simulated)], description: 'The record written, or with a test token the simulated write.' } : data,
      simulated: { type: 'boolean', description: 'True with a test token: every check passed and nothing was recorded.' },
      idempotencyKey: IDEMPOTENCY_KEY,
      replayed: { type: 'boolean', description: 'True when the API answered again for the same Idempotency-Key (done once).' },
      requestId: REQUEST_ID,
    },
    required: ['data', 'simulated', 'idempotencyKey', 'replayed', 'requestId'],
  }
}

/**
 * An answer that takes one shape per case (the authorization: one per decision, `oneOf`) as one
 * object: each member with every schema it takes in some shape, required when every shape requires it.
 */
function membersOf(answer: JsonSchema): Members {
  const shapes = answer.oneOf ?? [answer]
  const properties: Record<string, JsonSchema> = {}
  for (const shape of shapes) {
    for (const [name, schema] of Object.entries(shape.properties ?? {})) {
      const seen = properties[name]
      if (!seen) properties[name] = schema
      else if (JSON.stringify(seen) !== JSON.stringify(schema)) {
        const taken = seen.anyOf && seen.description === undefined ? seen.anyOf : [seen]
        if (!taken.some((t) => JSON.stringify(t) === JSON.stringify(schema))) properties[name] = { anyOf: [...taken, schema] }
      }
    }
  }
  const required = Object.keys(properties).filter((name) => shapes.every((shape) => shape.required?.includes(name)))
  return { properties, required }
}

function agentMembers(op: CatalogueOperation): Members {
  const answer = membersOf(clean(resolve(op.response)))
  const properties: Record<string, JsonSchema> = { ...answer.properties, requestId: REQUEST_ID }
  const required = [...answer.required, 'requestId']
  if (op.spec.kind === 'write') {
    properties.idempotencyKey = IDEMPOTENCY_KEY
    required.push('idempotencyKey')
  }
  return { properties, required }
}

/** The tool's outputSchema: its answer, or (isError) a tool error; each an object of its own (report_result's answer has an error member of its own). */
export function outputSchemaOf(op: CatalogueOperation): JsonSchema {
  const { properties, required } = op.caller === 'agent' ? agentMembers(op) : workspaceMembers(op)
  return {
    type: 'object',
    anyOf: [
      { type: 'object', title: 'answer', properties, required, additionalProperties: false },
      { type: 'object', title: 'tool error', properties: { error: TOOL_ERROR }, required: ['error'], additionalProperties: false },
    ],
  }
}
