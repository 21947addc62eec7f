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
    expect(doc.paths['/api/v1/experiments'].post.parameters.map((p: any) => p.name)).toEqual(['Idempotency-Key'])
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

/**
 * Every example the document holds, with the schema it must be valid against: the example(s) of
 * each parameter, header and media type (request bodies and answers) next to its `schema`, and the
 * `example`/`examples` of any JSON Schema inside. Example values themselves are not walked into (the
 * document's own example holds a `schema`-shaped OpenAPI text).
 */
function examplesIn(doc: any): { where: string; schema: object; value: unknown }[] {
  const found: { where: string; schema: object; value: unknown }[] = []
  const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas']
  const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']
  const SCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']
  const inSchema = (s: any, where: string) => {
    if (!s || typeof s !== 'object') return
    if ('example' in s) found.push({ where: `${where}/example`, schema: s, value: s.example })
    if (Array.isArray(s.examples)) s.examples.forEach((value: unknown, i: number) => found.push({ where: `${where}/examples/${i}`, schema: s, value }))
    for (const k of SCHEMA_MAPS) for (const [name, sub] of Object.entries(s[k] ?? {})) inSchema(sub, `${where}/${k}/${name}`)
    for (const k of SCHEMA_LISTS) (s[k] ?? []).forEach((sub: unknown, i: number) => inSchema(sub, `${where}/${k}/${i}`))
    for (const k of SCHEMAS) inSchema(s[k], `${where}/${k}`)
  }
  const walk = (node: any, where: string) => {
    if (!node || typeof node !== 'object') return
    if (node.schema && typeof node.schema === 'object') {
      if ('example' in node) found.push({ where: `${where}/example`, schema: node.schema, value: node.example })
      for (const [name, ex] of Object.entries<any>(node.examples ?? {})) found.push({ where: `${where}/examples/${name}`, schema: node.schema, value: ex?.value })
      inSchema(node.schema, `${where}/schema`)
    }
    for (const [k, v] of Object.entries(node)) if (!['example', 'examples', 'schema'].includes(k)) walk(v, `${where}/${k}`)
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) inSchema(schema, `#/components/schemas/${name}`)
  walk({ paths: doc.paths, parameters: doc.components.parameters, headers: doc.components.headers, responses: doc.components.responses, requestBodies: doc.components.requestBodies }, '#')
  return found
}

describe('examples', () => {
  test('every example in the document (parameters, request bodies, answers, headers, schemas) is valid against its schema', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const validate = validatorFor(doc)
    const examples = examplesIn(doc)
    const invalid = examples.flatMap(({ where, schema, value }) => {
      const v = validate(schema, value)
      return v.valid ? [] : [`${where}: ${JSON.stringify(value)?.slice(0, 80)}: ${v.errors} (the answers: npm run examples:capture)`]
    })
    expect(invalid).toEqual([])
    // The walk sees the examples there are: each limit, each request body, each answer.
    const limits = examples.filter((e) => /\/parameters\/\d+\/example$/.test(e.where) && (e.schema as any).type === 'integer')
    expect(limits.length).toBeGreaterThanOrEqual(9)
    for (const e of limits) expect(typeof e.value).toBe('number')
    expect(examples.filter((e) => e.where.includes('/requestBody/')).length).toBe(operations.filter((op) => op.kind === 'write').length)
    expect(examples.filter((e) => /\/responses\/20[01]\//.test(e.where)).length).toBeGreaterThanOrEqual(operations.length)
  })

  test('every operation has a request example where it takes a body, and an answer example', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const missing: string[] = []
    for (const methods of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(methods)) {
        const ok = op.responses['201'] ?? op.responses['200']
        if (ok.content['application/json'].example === undefined) missing.push(`${op.operationId}: no answer example (npm run examples:capture)`)
        if (op.requestBody && op.requestBody.content['application/json'].example === undefined) missing.push(`${op.operationId}: no request example`)
      }
    }
    expect(missing).toEqual([])
  })

  test('each write has an Idempotency-Key example of its own, so replaying the examples is never refused as a reused key', async () => {
    const doc = (await call('GET', '/api/v1/openapi.json')).body
    const keys = new Map<string, string>()
    for (const methods of Object.values<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        if (method !== 'post') continue
        const key = (op.parameters ?? []).find((p: any) => p.name === 'Idempotency-Key')
        expect(key?.example, `${op.operationId} has no Idempotency-Key example`).toBeString()
        keys.set(op.operationId, key.example)
      }
    }
    expect(keys.size).toBe(operations.filter((op) => op.kind === 'write').length)
    expect(new Set(keys.values()).size).toBe(keys.size)
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
