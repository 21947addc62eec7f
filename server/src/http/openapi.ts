import { z } from 'zod'
import type { Operation } from '../routes/operation.ts'
import { ErrorEnvelope, PageMeta, SimulatedWrite } from '../schemas/common.ts'

type Json = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const COMMON_ERRORS: Record<string, string> = {
  '400': 'Bad request: invalid_parameter, invalid_body or invalid_request; the message names what was wrong.',
  '401': 'unauthorized: no credential, or an unknown, revoked or expired one.',
  '402': 'plan_required: the plan does not include this, or an allowance ran out.',
  '403': 'forbidden: the token lacks the scope this endpoint needs (named in the message).',
  '404': 'not_found: nothing with that id in this workspace.',
  '429': 'rate_limited: too many requests; Retry-After says when to retry.',
  '500': 'internal: failure on the service side, recorded with the request id.',
}
/** What an endpoint without a credential can answer besides success. */
const PUBLIC_ERRORS: Record<string, string> = {
  '400': 'invalid_parameter: a query parameter the endpoint does not take (named in the message).',
  '429': COMMON_ERRORS['429']!,
  '500': COMMON_ERRORS['500']!,
}
const WRITE_ERRORS: Record<string, string> = {
  '409': 'conflict: the record refuses this in its state, or a request with this Idempotency-Key is still being answered.',
  '422': 'idempotency_key_reused: the key was used in the last 24 hours with a different request.',
}

/** Convert a set of named zod schemas into JSON Schemas that refer to each other by component name. */
function components(models: Map<string, z.ZodType>, io: 'input' | 'output'): Record<string, Json> {
  const registry = z.registry<{ id: string }>()
  for (const [name, schema] of models) registry.add(schema, { id: name })
  const out = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> }
  for (const schema of Object.values(out.schemas)) {
    delete schema.$schema
    delete schema.$id
  }
  return out.schemas
}

function queryParameters(schema: z.ZodType | undefined): Json[] {
  if (!schema) return []
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Json>
    required?: string[]
  }
  return Object.entries(json.properties ?? {}).map(([name, prop]) => {
    const { description, ...rest } = prop
    return {
      name,
      in: 'query',
      required: (json.required ?? []).includes(name) && !('default' in prop),
      ...(description ? { description } : {}),
      schema: rest,
    }
  })
}

const rateHeaders = {
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  'Retry-After': { $ref: '#/components/headers/Retry-After' },
}

function jsonContent(schema: Json) {
  return { 'application/json': { schema } }
}

function successSchema(op: Operation): Json {
  const model = ref(op.response.model.name)
  if (op.response.shape === 'raw') return model
  if (op.response.shape === 'item') return { type: 'object', required: ['data'], properties: { data: model } }
  const data = { type: 'array', items: model }
  if (op.response.shape === 'list') return { type: 'object', required: ['data'], properties: { data } }
  const meta = op.method === 'GET' && op.response.meta ? op.response.meta.name : 'PageMeta'
  return { type: 'object', required: ['data'], properties: { data, meta: ref(meta) } }
}

/** The OpenAPI 3.1 document, built from the same declarations that serve the routes. */
export function buildOpenApi(operations: Operation[]): Json {
  const responseModels = new Map<string, z.ZodType>([
    ['Error', ErrorEnvelope],
    ['PageMeta', PageMeta],
    ['SimulatedWrite', SimulatedWrite],
  ])
  const requestModels = new Map<string, z.ZodType>()
  for (const op of operations) {
    responseModels.set(op.response.model.name, op.response.model.schema)
    if (op.method === 'GET' && op.response.meta) responseModels.set(op.response.meta.name, op.response.meta.schema)
    if (op.method === 'POST') requestModels.set(op.body.model.name, op.body.model.schema)
  }

  const paths: Record<string, Record<string, Json>> = {}
  for (const op of operations) {
    const responses: Record<string, Json> = {}
    const ok = { headers: rateHeaders, content: jsonContent(successSchema(op)) }
    if (op.method === 'POST') {
      responses['201'] = { description: 'Created (live token).', ...ok }
      responses['200'] = {
        description: 'Simulated (test token): every check passed, nothing was recorded. X-Service-Mode: test.',
        headers: rateHeaders,
        content: jsonContent({ type: 'object', required: ['data'], properties: { data: ref('SimulatedWrite') } }),
      }
    } else {
      responses['200'] = { description: 'OK.', ...ok }
    }
    const errors = op.auth.kind === 'public' ? PUBLIC_ERRORS : { ...COMMON_ERRORS, ...(op.method === 'POST' ? WRITE_ERRORS : {}) }
    for (const [status, description] of Object.entries(errors)) {
      responses[status] = { description, headers: rateHeaders, content: jsonContent(ref('Error')) }
    }
    const parameters: Json[] = queryParameters(op.query)
    if (op.method === 'POST') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' })
    const security =
      op.auth.kind === 'public' ? [] : op.auth.kind === 'agent' ? [{ AgentCredential: [] }] : [{ WorkspaceToken: [op.auth.scope] }]
    const entry: Json = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security,
      ...(op.auth.kind === 'workspace' ? { 'x-scope': op.auth.scope } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(op.method === 'POST'
        ? { requestBody: { required: true, content: jsonContent(ref(op.body.model.name)) } }
        : {}),
      responses,
    }
    paths[`/api/v1${op.path}`] ??= {}
    paths[`/api/v1${op.path}`]![op.method.toLowerCase()] = entry
  }

  const schemas = { ...components(responseModels, 'output'), ...components(requestModels, 'input') }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Growth Automation Service API',
      version: '1',
      description:
        'A workspace-scoped JSON API for a marketing and growth product. Every answer is `{ data }`, `{ data, meta }` when there is another page, or `{ error: { code, message } }`.',
    },
    servers: [{ url: '/', description: 'This deployment' }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        WorkspaceToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A workspace token: svc_live_... or svc_test_... (test tokens read like live ones; their writes are simulated). The operation lists the scope it needs.',
        },
        AgentCredential: { type: 'http', scheme: 'bearer', description: 'An agent credential: svc_agt_...; opens only the /api/v1/agent/ endpoints.' },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'At most 255 characters. The same key and request within 24 hours returns the first answer with Idempotent-Replayed: true; a different request under it is 422; while the first is in flight, 409.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
      headers: {
        'X-Request-Id': { description: 'The id of this request, for support.', schema: { type: 'string' } },
        'X-RateLimit-Limit': { description: 'Requests allowed per hour for this credential.', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'When the window resets, in Unix seconds.', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying; 0 unless the limit was passed.', schema: { type: 'integer' } },
      },
    },
  }
}
