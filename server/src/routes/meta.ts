import { ApiIndex, OpenApiDocument } from '../schemas/meta.ts'
import { defineItem, model, type Operation } from './operation.ts'

/**
 * GET /api/v1 and GET /api/v1/openapi.json, both computed once from the operation table. The
 * document is built by the http layer (it knows the envelope, the headers, the paging parameters),
 * which hands its builder in.
 */
export function metaOperations(all: () => Operation[], buildDocument: (ops: Operation[]) => Record<string, unknown>): Operation[] {
  let index: ApiIndex | undefined
  let document: Record<string, unknown> | undefined
  return [
    defineItem({
      method: 'GET',
      path: '',
      operationId: 'getApiIndex',
      sdk: null,
      summary: 'List the endpoints of this deployment',
      description: 'The live list of endpoints. No token needed; it holds no workspace data.',
      tag: 'Meta',
      auth: { kind: 'public' },
      response: model('ApiIndex', ApiIndex),
      example: { query: {} },
      handler: async () =>
        (index ??= {
          version: '1',
          openapi: '/api/v1/openapi.json',
          reference: '/api/v1/reference',
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
    defineItem({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      sdk: null,
      summary: 'The OpenAPI 3.1 description',
      description:
        'The machine-readable description of this API, generated from the declarations that serve it. No token needed. Served as the document itself, not wrapped in data, so OpenAPI tools can read it.',
      tag: 'Meta',
      auth: { kind: 'public' },
      response: model('OpenApiDocument', OpenApiDocument),
      bare: true,
      example: { query: {} },
      handler: async () => (document ??= buildDocument(all())),
    }),
  ]
}
