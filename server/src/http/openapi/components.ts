import { z } from 'zod'
import { IDEMPOTENCY_KEY } from '../idempotency.ts'

type Json = Record<string, unknown>

/** A set of named zod schemas as JSON Schemas that refer to each other by component name. */
export function schemaComponents(models: Map<string, z.ZodType>, io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>()
  for (const [name, schema] of models) registry.add(schema, { id: name })
  const out = z.toJSONSchema(registry, { target: 'draft-2020-12', io, unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` }) as {
    schemas: Record<string, Json>
  }
  for (const schema of Object.values(out.schemas)) {
    delete schema.$schema
    delete schema.$id
  }
  return out.schemas
}

/** Each member of a query schema (a zod object) as a query parameter, with its example value if one is given. */
export function queryParameters(schema: z.ZodType, example: Record<string, string> = {}): Json[] {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Json>; required?: string[] }
  return Object.entries(json.properties ?? {}).map(([name, prop]) => {
    const { description, ...rest } = prop
    return {
      name,
      in: 'query',
      required: (json.required ?? []).includes(name) && !('default' in prop),
      ...(description ? { description } : {}),
      schema: rest,
      ...(example[name] !== undefined ? { example: example[name] } : {}),
    }
  })
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` })

/** The headers every answer carries. */
export const ANSWER_HEADERS = {
  'X-Request-Id': header('X-Request-Id'),
  'X-RateLimit-Limit': header('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': header('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': header('X-RateLimit-Reset'),
  'Retry-After': header('Retry-After'),
}

export const SECURITY_SCHEMES = {
  WorkspaceToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'A workspace token: svc_live_... or svc_test_... (test tokens read like live ones; their writes are simulated). The operation lists the scope it needs.',
  },
  AgentCredential: { type: 'http', scheme: 'bearer', description: 'An agent credential: svc_agt_...; opens only the /api/v1/agent/ endpoints.' },
}

export const SHARED_PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      '1 to 255 visible ASCII characters (spaces only between them), e.g. a UUID. The same key and request within 24 hours returns the first answer with Idempotent-Replayed: true; a different request under it is 422; while the first is in flight, 409. Generate one per logical operation and reuse it on every retry.',
    // HTTP trims a header value's leading and trailing whitespace and carries only ASCII reliably,
    // so the key is what the server checks (http/idempotency.ts): a key of spaces would arrive empty.
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
    example: 'b7e4c1f0-2a9d-4c61-9a3e-5f1d8c2e7a40',
  },
}

export const SHARED_HEADERS = {
  'X-Request-Id': { description: 'The id of this request (an error also carries it as error.requestId), for logs and support.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per hour for this credential.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, in Unix seconds.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying; 0 unless the limit was passed.', schema: { type: 'integer' } },
}
