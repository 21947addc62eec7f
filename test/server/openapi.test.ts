import { describe, expect, test } from 'bun:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { operations } from '../../server/src/http/operations.ts'
import { call } from '../harness.ts'
import { validatorFor } from '../support/arbitraries.ts'

describe('GET /api/v1/openapi.json', () => {
  test('is an OpenAPI 3.1 document, info.version "1", valid for an independent validator, without a token', async () => {
    const r = await call('GET', '/api/v1/openapi.json')
    expect(r.status).toBe(200)
    expect(r.body.openapi).toMatch(/^3\.1\./)
    expect(r.body.info.version).toBe('1')
    const validator = new Validator()
    const result = await validator.validate(r.body)
    if (!result.valid) throw new Error(`invalid OpenAPI: ${JSON.stringify(result.errors).slice(0, 2000)}`)
  })

  test('describes every field of every response schema', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const undescribed: string[] = []
    const described = (v: any) => v.description || v.$ref || (v.anyOf ?? []).some((x: any) => x.description || x.$ref)
    const walk = (s: any, path: string) => {
      if (!s || typeof s !== 'object' || s.$ref) return
      for (const [k, v] of Object.entries<any>(s.properties ?? {})) {
        if (!described(v)) undescribed.push(`${path}.${k}`)
        walk(v, `${path}.${k}`)
      }
      if (s.items) walk(s.items, `${path}[]`)
      for (const x of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(x, path)
    }
    for (const [name, schema] of Object.entries<any>(doc.components.schemas)) walk(schema, name)
    expect(undescribed).toEqual([])
  })

  test('describes exactly the operations the server serves, each with an operationId and named response schemas', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const documented: string[] = []
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        documented.push(`${method.toUpperCase()} ${path} ${op.operationId}`)
        expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/)
        const ok = op.responses['200'] ?? op.responses['201']
        const schema = ok.content['application/json'].schema
        const refs = JSON.stringify(schema).match(/#\/components\/schemas\/\w+/g) ?? []
        expect(refs.length).toBeGreaterThan(0)
        for (const ref of refs) expect(doc.components.schemas[ref.split('/').pop()!]).toBeDefined()
      }
    }
    const served = operations.map((op) => `${op.method} /api/v1${op.path} ${op.operationId}`)
    expect(documented.sort()).toEqual(served.sort())
    for (const name of ['Mission', 'Decision', 'Experiment', 'CreateExperimentRequest', 'Error']) {
      expect(doc.components.schemas[name]).toBeDefined()
    }
    // every workspace-token operation names its scope; writes take an Idempotency-Key
    expect(doc.paths['/api/v1/missions'].get.security).toEqual([{ WorkspaceToken: ['read:growth'] }])
    expect(doc.paths['/api/v1/experiments'].post.security).toEqual([{ WorkspaceToken: ['write:experiments'] }])
    expect(doc.paths['/api/v1/experiments'].post.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' })
  })

  test('every field of the response models is described by a type', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const mission = doc.components.schemas.Mission
    expect(Object.keys(mission.properties).sort()).toEqual(
      ['automationCount', 'automations', 'createdAt', 'dueAt', 'id', 'metric', 'name', 'objective', 'progress', 'startedAt', 'status'].sort(),
    )
    // one shape per kind of test, each strict, each with the hypothesis rule
    const shapes = doc.components.schemas.CreateExperimentRequest.oneOf
    expect(shapes).toHaveLength(2)
    for (const shape of shapes) {
      expect(shape.additionalProperties).toBe(false)
      expect(shape.properties.hypothesis.minLength).toBe(10)
    }
  })
})

describe('examples', () => {
  test('every operation has a request example and a captured answer, each valid by the document', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const validate = validatorFor(doc)
    const missing: string[] = []
    const invalid: string[] = []
    for (const [path, methods] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        if (op.operationId === 'getOpenApiDocument') continue
        const ok = op.responses['201'] ?? op.responses['200']
        const content = ok.content['application/json']
        if (content.example === undefined) missing.push(`${op.operationId}: no response example (npm run examples:capture)`)
        else {
          const v = validate(content.schema, content.example)
          if (!v.valid) invalid.push(`${op.operationId} response: ${v.errors} (npm run examples:capture)`)
        }
        if (method === 'post') {
          const body = op.requestBody.content['application/json']
          if (body.example === undefined) missing.push(`${op.operationId}: no request example`)
          else if (!validate(body.schema, body.example).valid) invalid.push(`${op.operationId} request: ${validate(body.schema, body.example).errors}`)
        }
        for (const p of op.parameters ?? []) {
          if (p.example !== undefined && p.schema && !validate(p.schema, p.name === 'limit' ? Number(p.example) : p.example).valid) {
            invalid.push(`${op.operationId} ${path} parameter ${p.name}: ${p.example}`)
          }
        }
      }
    }
    expect(missing).toEqual([])
    expect(invalid).toEqual([])
  })
})

describe('GET /api/v1', () => {
  test('the live list of endpoints, without a token and without workspace data', async () => {
    const r = await call('GET', '/api/v1')
    expect(r.status).toBe(200)
    expect(r.body.data.version).toBe('1')
    expect(r.body.data.openapi).toBe('/api/v1/openapi.json')
    const listed = r.body.data.endpoints.map((e: any) => `${e.method} ${e.path}`)
    expect(listed.sort()).toEqual(operations.map((op) => `${op.method} /api/v1${op.path}`).sort())
    const missions = r.body.data.endpoints.find((e: any) => e.operationId === 'listMissions')
    expect(missions).toEqual({ method: 'GET', path: '/api/v1/missions', operationId: 'listMissions', summary: 'List missions', auth: 'workspace', scope: 'read:growth' })
    expect(r.text).not.toMatch(/ws_[0-9a-z]{26}/)
  })
})

describe('documented refusals', () => {
  test('the public operations document the 400 they answer to an unknown query parameter', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    for (const path of ['/api/v1', '/api/v1/openapi.json']) {
      const r = await call('GET', `${path}?colour=red`)
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('invalid_parameter')
      expect(Object.keys(doc.paths[path].get.responses).sort()).toEqual(['200', '400', '429', '500'])
      expect(doc.paths[path].get.responses['400'].description).toContain('invalid_parameter')
    }
  })
})
