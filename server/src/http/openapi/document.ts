import { z } from 'zod'
import { cursorNames, type Operation, type Paging } from '../../routes/operation.ts'
import { AgentRequestsPageMeta } from '../../schemas/agent-requests.ts'
import { ErrorEnvelope, PageMeta, SimulatedWrite } from '../../schemas/common.ts'
import { DecidedBy } from '../../schemas/decided-by.ts'
import { EVENT_CATALOGUE, EVENT_TYPES } from '../../core/event-types.ts'
import { EVENT_EXAMPLES, eventBody, eventModelName } from '../../schemas/event-payloads.ts'
import { pagingParameters } from '../paging.ts'
import { ANSWER_HEADERS, idempotencyKeyParameter, queryExample, queryParameters, schemaComponents, SECURITY_SCHEMES, SHARED_HEADERS, WEBHOOK_HEADER_PARAMETERS } from './components.ts'
import { API_DESCRIPTION } from './description.ts'
import EXAMPLES from './examples.json'

type Json = Record<string, unknown>

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: Json, example?: unknown) => ({ 'application/json': { schema, ...(example === undefined ? {} : { example }) } })

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

/** The body of a successful answer: the model bare, in data, or a page of it in data with its meta. */
function successSchema(op: Operation): Json {
  const model = ref(op.response.name)
  if (op.kind === 'item') return op.bare ? model : { type: 'object', required: ['data'], properties: { data: model }, additionalProperties: false }
  if (op.kind === 'write') return { type: 'object', required: ['data'], properties: { data: model }, additionalProperties: false }
  const meta = op.paging.style === 'before' ? 'AgentRequestsPageMeta' : 'PageMeta'
  return { type: 'object', required: ['data'], properties: { data: { type: 'array', items: model }, meta: ref(meta) }, additionalProperties: false }
}

/** The operation's description, with the rules its schema cannot state. */
function descriptionOf(op: Operation): string {
  if (!op.rules?.length) return op.description
  return `${op.description}\n\nRules the schema cannot state (each refused with 400 naming it):\n${op.rules.map((r) => `- ${r.description}`).join('\n')}`
}

function parametersOf(op: Operation): Json[] {
  if (op.kind === 'write') return [idempotencyKeyParameter(op.operationId)]
  const example = op.example?.query ?? {}
  const filters = op.query ? queryParameters(op.query, example) : []
  if (op.kind !== 'list') return filters
  return [...filters, ...pagingParameters(op).map((p) => (example[p.name] !== undefined ? { ...p, example: queryExample(p.schema, example[p.name]) } : p))]
}

/**
 * How a list pages, for clients that follow it (the SDK's auto-paging): the query parameter that
 * takes the next position, and the meta member that gives it.
 */
function pagingExtension(paging: Paging): Json {
  const { param, meta } = cursorNames(paging)
  return { param, next: meta, order: paging.style === 'stream' ? 'oldest_first' : 'listed', maxLimit: paging.maxLimit, defaultLimit: paging.defaultLimit }
}

/** A real answer of the operation to its example request, captured from the demo (npm run examples:capture). */
const exampleOf = (op: Operation): unknown => (EXAMPLES as Record<string, unknown>)[op.operationId]

function pathItem(op: Operation): Json {
  const responses: Record<string, Json> = {}
  const ok = { headers: ANSWER_HEADERS, content: json(successSchema(op), exampleOf(op)) }
  if (op.kind === 'write' && op.auth.kind === 'agent') {
    // An agent credential has no test mode: the gateway decides and records every request.
    responses['201'] = { description: 'Created.', ...ok }
  } else if (op.kind === 'write') {
    responses['201'] = { description: 'Created (live token).', ...ok }
    responses['200'] = {
      description: 'Simulated (test token): every check passed, nothing was recorded. X-Service-Mode: test.',
      headers: ANSWER_HEADERS,
      content: json({ type: 'object', required: ['data'], properties: { data: ref('SimulatedWrite') }, additionalProperties: false }, { data: { simulated: true } }),
    }
  } else {
    responses['200'] = { description: 'OK.', ...ok }
  }
  const errors = op.auth.kind === 'public' ? PUBLIC_ERRORS : { ...COMMON_ERRORS, ...(op.kind === 'write' ? WRITE_ERRORS : {}) }
  for (const [status, description] of Object.entries(errors)) {
    responses[status] = { description, headers: ANSWER_HEADERS, content: json(ref('Error')) }
  }
  const parameters = parametersOf(op)
  const security = op.auth.kind === 'public' ? [] : op.auth.kind === 'agent' ? [{ AgentCredential: [] }] : [{ WorkspaceToken: [op.auth.scope] }]
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: descriptionOf(op),
    tags: [op.tag],
    security,
    ...(op.auth.kind === 'workspace' ? { 'x-scope': op.auth.scope } : {}),
    ...(op.sdk ? { 'x-sdk-method': op.sdk } : {}),
    ...(op.kind === 'list' ? { 'x-paging': pagingExtension(op.paging) } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(op.kind === 'write' ? { requestBody: { required: true, content: json(ref(op.body.name), op.example.body) } } : {}),
    responses,
  }
}

/**
 * What a webhook endpoint receives for one event type: a POST whose body is the event object with
 * `data` as that type's payload (the same body GET /events returns), with an example captured from
 * a real emission (the sample `growth admin webhook test --event TYPE` sends).
 */
function webhookItem(type: (typeof EVENT_TYPES)[number]): Json {
  return {
    post: {
      operationId: `on_${type.replaceAll('.', '_')}`,
      summary: type,
      description: `${EVENT_CATALOGUE[type]}\n\nSigned with the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) and X-Service-Signature.`,
      tags: ['Events'],
      parameters: Object.keys(WEBHOOK_HEADER_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
      requestBody: { required: true, content: json(ref(eventModelName(type)), EVENT_EXAMPLES[type]) },
      responses: {
        '2XX': { description: 'Any 2xx acknowledges the delivery; anything else (but 410) is retried.' },
        '410': { description: 'Gone: disables the endpoint. What was queued for it waits until an operator enables it again; events meanwhile are not sent to it.' },
      },
    },
  }
}

/** The OpenAPI 3.1 document, built from the same declarations that serve the routes (no server needed). */
export function buildOpenApi(operations: Operation[]): Json {
  const responseModels = new Map<string, z.ZodType>([
    ['Error', ErrorEnvelope],
    ['PageMeta', PageMeta],
    ['AgentRequestsPageMeta', AgentRequestsPageMeta],
    ['SimulatedWrite', SimulatedWrite],
    // Shared by approvals, actions and agent requests (and later the console's decisions): one named type.
    ['DecidedBy', DecidedBy],
  ])
  const requestModels = new Map<string, z.ZodType>()
  for (const op of operations) {
    responseModels.set(op.response.name, op.response.schema)
    if (op.kind === 'write') requestModels.set(op.body.name, op.body.schema)
  }
  const webhooks: Record<string, Json> = {}
  for (const type of EVENT_TYPES) {
    responseModels.set(eventModelName(type), eventBody(type))
    webhooks[type] = webhookItem(type)
  }
  const paths: Record<string, Record<string, Json>> = {}
  for (const op of operations) (paths[`/api/v1${op.path}`] ??= {})[op.method.toLowerCase()] = pathItem(op)

  return {
    openapi: '3.1.0',
    info: { title: 'Growth Automation Service API', version: '1', description: API_DESCRIPTION },
    servers: [{ url: '/', description: 'This deployment' }],
    tags: TAGS,
    paths,
    webhooks,
    components: {
      schemas: { ...schemaComponents(responseModels, 'output'), ...schemaComponents(requestModels, 'input') },
      securitySchemes: SECURITY_SCHEMES,
      headers: SHARED_HEADERS,
      parameters: WEBHOOK_HEADER_PARAMETERS,
    },
  }
}

/** The groups of the reference, in order, each with a line on what it holds. */
const TAGS = [
  { name: 'Meta', description: 'What this deployment serves: the list of endpoints and this document.' },
  { name: 'Growth', description: 'Missions, the decision ledger, signals, opportunities, experiments, outcomes and approvals.' },
  { name: 'Actions', description: 'Proposed changes: planned, checked against the workspace limits, decided by a person.' },
  { name: 'Contacts', description: 'Contacts added in bulk, tracked events that start workflows, and customers.' },
  { name: 'Analytics', description: 'Revenue per currency, usage of the plan, and connections.' },
  { name: 'Events', description: 'The events a webhook can subscribe to, as a stream to poll.' },
  { name: 'Agents', description: "The workspace's view of its agents: agents, tools, rules and every gateway decision." },
  { name: 'Agent gateway', description: 'An agent asking whether it may act, reporting what became of it, and reading its own profile, on its own credential.' },
  { name: 'Logs', description: "The request log: every call of the workspace's credentials in the last 7 days, refusals included, with the request id each answer carried." },
]
