import { describe, expect, test } from 'bun:test'
import { operations } from '../../server/src/http/operations.ts'
import { call, expectError, makeWorkspace } from '../harness.ts'

/**
 * Only plain decimal integers are integers: every integer query parameter of every operation, as
 * the OpenAPI document lists them (so a new operation or parameter is covered as it is added),
 * refuses the spellings a number parser would accept (hex, binary, octal, exponent, a fraction, a
 * sign, a space, a leading zero) with 400 invalid_parameter naming the parameter.
 */
const MALFORMED = ['0x10', '0b11', '0o7', '1e1', '5.0', '%2B5', '+5', '%205', '05', '5%20', '-5', '']

type Param = { name: string; in: string; schema?: { type?: string } }
type DocOperation = { operationId: string; parameters?: Param[] }

describe('integer query parameters', async () => {
  const doc = (await call('GET', '/api/v1/openapi.json')).body as { paths: Record<string, Record<string, DocOperation>> }
  const cases: { method: string; path: string; operationId: string; param: string }[] = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const p of op.parameters ?? []) {
        if (p.in === 'query' && p.schema?.type === 'integer') cases.push({ method: method.toUpperCase(), path, operationId: op.operationId, param: p.name })
      }
    }
  }

  test('the document declares integer query parameters (so the tests below test something)', () => {
    expect(cases.filter((c) => c.param === 'limit').length).toBeGreaterThanOrEqual(6)
  })

  for (const c of cases) {
    test(`${c.method} ${c.path} (${c.operationId}) refuses ${c.param}=${MALFORMED.join(' ')} naming ${c.param}, and takes ${c.param}=5`, async () => {
      const declared = operations.find((op) => op.operationId === c.operationId)!
      const ws = await makeWorkspace()
      const token = declared.auth.kind === 'agent' ? ws.agent.credential : ws.live
      // The document's paths are the server's, under /api/v1; no integer parameter sits on a path with ids.
      const base = `/api/v1${c.path.replace(/^\/api\/v1/, '')}`
      for (const value of MALFORMED) {
        const r = await call(c.method, `${base}?${c.param}=${value}`, { token })
        expectError(r, 400, 'invalid_parameter', c.param)
      }
      const ok = await call(c.method, `${base}?${c.param}=5`, { token })
      expect(ok.status).toBe(200)
    })
  }
})
