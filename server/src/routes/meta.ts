import { z } from 'zod'
import { buildOpenApi } from '../http/openapi.ts'
import { SCOPES, defineRead, type Operation } from './operation.ts'

const ApiIndex = z
  .object({
    version: z.literal('1').describe('The API version; the base path is /api/v1.'),
    openapi: z.string().describe('Where the OpenAPI 3.1 description is.'),
    endpoints: z.array(
      z.object({
        method: z.enum(['GET', 'POST']).describe('HTTP method.'),
        path: z.string().describe('Full path, e.g. /api/v1/missions.'),
        operationId: z.string().describe('The operationId in the OpenAPI document.'),
        summary: z.string().describe('What it does, in a line.'),
        auth: z.enum(['public', 'workspace', 'agent']).describe('No credential, a workspace token, or an agent credential.'),
        scope: z.enum(SCOPES).nullable().describe('The scope a workspace token needs; null otherwise.'),
      }),
    ).describe('Every endpoint this deployment serves.'),
  })
  .describe('The endpoints this deployment serves.')

const OpenApiDocument = z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.')

/** GET /api/v1 and GET /api/v1/openapi.json, both computed from the operation table once. */
export function metaOperations(all: () => Operation[]): Operation[] {
  let index: z.infer<typeof ApiIndex> | undefined
  let document: Record<string, unknown> | undefined
  return [
    defineRead({
      method: 'GET',
      path: '',
      operationId: 'getApiIndex',
      summary: 'List the endpoints of this deployment',
      description: 'The live list of endpoints. No token needed; it holds no workspace data.',
      tag: 'Meta',
      auth: { kind: 'public' },
      response: { model: { name: 'ApiIndex', schema: ApiIndex }, shape: 'item' },
      handler: async () =>
        (index ??= {
          version: '1',
          openapi: '/api/v1/openapi.json',
          endpoints: all().map((op) => ({
            method: op.method,
            path: `/api/v1${op.path}`,
            operationId: op.operationId,
            summary: op.summary,
            auth: op.auth.kind,
            scope: op.auth.kind === 'workspace' ? op.auth.scope : null,
          })),
        }),
    }),
    defineRead({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'The OpenAPI 3.1 description',
      description:
        'The machine-readable description of this API, generated from the declarations that serve it. No token needed. Served as the document itself, not wrapped in data, so OpenAPI tools can read it.',
      tag: 'Meta',
      auth: { kind: 'public' },
      response: { model: { name: 'OpenApiDocument', schema: OpenApiDocument }, shape: 'raw' },
      handler: async () => (document ??= buildOpenApi(all())),
    }),
  ]
}
