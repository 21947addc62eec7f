import { createHash } from 'node:crypto'
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

/**
 * A query example is declared as it travels (text, `limit: '10'`); the document carries the value it
 * stands for, typed as the parameter's schema says (10), so that it is valid against that schema.
 */
export function queryExample(schema: Json, text: string): unknown {
  if (schema.type === 'integer' || schema.type === 'number') return Number(text)
  if (schema.type === 'boolean') return text === 'true'
  return text
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
      ...(example[name] !== undefined ? { example: queryExample(rest, example[name]) } : {}),
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

/**
 * The Idempotency-Key header of a write, with an example of its own: tools that replay the
 * document's examples (Schemathesis, Scalar, Postman) would otherwise send one key to every write
 * and be refused with 422 idempotency_key_reused. The example is a UUID made from the operationId,
 * so it is the same in every build and differs between operations. Inline rather than a shared
 * component, because a $ref cannot carry an example of its own.
 */
export function idempotencyKeyParameter(operationId: string): Json {
  const hex = createHash('sha256').update(`Idempotency-Key example of ${operationId}`).digest('hex')
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      '1 to 255 visible ASCII characters (spaces only between them), e.g. a UUID. The same key and request within 24 hours returns the first answer with Idempotent-Replayed: true; a different request under it is 422; while the first is in flight, 409. Generate one per logical operation and reuse it on every retry.',
    // HTTP trims a header value's leading and trailing whitespace and carries only ASCII reliably,
    // so the key is what the server checks (http/idempotency.ts): a key of spaces would arrive empty.
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
    example: uuid,
  }
}

export const SHARED_HEADERS = {
  'X-Request-Id': { description: 'The id of this request (an error also carries it as error.requestId), for logs and support.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per hour for this credential.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets, in Unix seconds.', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying; 0 unless the limit was passed.', schema: { type: 'integer' } },
}

/**
 * The headers every webhook delivery carries (CONTRACT: Events and webhooks, Standard Webhooks), as
 * parameters each webhooks entry refers to, so the reference shows a receiver what arrives beside
 * the body. The patterns are what the delivery workers send (test/server/event-payloads.test.ts
 * checks a real delivery against them).
 */
export const WEBHOOK_HEADER_PARAMETERS: Record<string, Json> = {
  XServiceSignature: webhookHeader(
    'X-Service-Signature',
    "t=<unix seconds>,v1=<hex>: each v1 the lowercase hex HMAC-SHA256 of `<t>.<raw body>`, keyed with the UTF-8 bytes of the endpoint's whole secret (`whsec_...`); one v1 per live secret, newest first, while a secret is rotated. Stripe's scheme: stripe-node's constructEvent verifies it.",
    '^t=[0-9]+(,v1=[0-9a-f]{64})+$',
    't=1795926613,v1=db54a6a92c816ac4b17c46683184bf36698f5a9abe19d5190c1ef1f8d6fd765c',
  ),
  XServiceEventId: webhookHeader('X-Service-Event-Id', "The event's id, the same on every attempt of a delivery: deduplicate on it.", '^evt_[0-9a-z]+$', 'evt_01m8js2qskjrbnxj8wm87ve65y'),
  XServiceDeliveryId: webhookHeader('X-Service-Delivery-Id', "This delivery's id (the event to this endpoint), as `growth admin webhook attempts` lists it.", '^dlv_[0-9a-z]+$', 'dlv_01m8js2qskcacf657782924313'),
  WebhookId: webhookHeader('webhook-id', "Standard Webhooks: the event's id (as X-Service-Event-Id), the same on every attempt.", '^evt_[0-9a-z]+$', 'evt_01m8js2qskjrbnxj8wm87ve65y'),
  WebhookTimestamp: webhookHeader('webhook-timestamp', 'Standard Webhooks: when this attempt was signed, in unix seconds (the t of X-Service-Signature).', '^[0-9]+$', '1795926613'),
  WebhookSignature: webhookHeader(
    'webhook-signature',
    "Standard Webhooks: `v1,<base64>`, space-separated, one per live secret, newest first; each the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the bytes the secret's base64 after `whsec_` spells, so any Standard Webhooks library verifies it with the secret as printed.",
    '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$',
    'v1,bMYsyaBI0SSj71NT/wxdTnht//VQCQySWGfuyYCA2mM=',
  ),
}

function webhookHeader(name: string, description: string, pattern: string, example: string): Json {
  return { name, in: 'header', required: true, description, schema: { type: 'string', pattern }, example }
}
