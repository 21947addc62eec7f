import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { createToken } from '../../server/src/domain/credentials.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { callTool, type Connected, connect } from './support.ts'

/**
 * tools/list of `growth mcp` against the OpenAPI document the server serves: every operation the
 * SDK has a method for is a tool (a workspace token's, or an agent credential's), and each tool's
 * input schema is the operation's, as re-derived here from the document on its own. A new operation
 * without a tool, or a parameter or field whose tool argument drifted, fails this file.
 */

type Schema = Record<string, any>
type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } }

/** The agent operations' tools (the others are named by their operationId). */
const AGENT_TOOLS: Record<string, string> = { authorizeAgentAction: 'request_permission', reportAgentResult: 'report_result', getAgentSelf: 'my_profile' }

let doc: Doc
let ws: Workspace
let live: Connected
let agent: Connected
let liveTools: Tool[]
let agentTools: Tool[]

beforeAll(async () => {
  doc = (await call('GET', '/api/v1/openapi.json')).body
  ws = await makeWorkspace()
  ;[live, agent] = await Promise.all([connect('stdio', ws.live), connect('stdio', ws.agent.credential)])
  ;[liveTools, agentTools] = await Promise.all([live.client.listTools().then((r) => r.tools), agent.client.listTools().then((r) => r.tools)])
}, 30_000)

afterAll(async () => {
  await Promise.all([live?.close(), agent?.close()])
})

/** Every operation with an SDK method, as the served document declares it. */
function operations() {
  const out: { operationId: string; op: any; agent: boolean }[] = []
  for (const methods of Object.values(doc.paths)) {
    for (const op of Object.values(methods)) {
      if (!op['x-sdk-method']) continue
      out.push({ operationId: op.operationId, op, agent: !op['x-scope'] })
    }
  }
  return out
}

const ANY_JSON = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']

const resolve = (s: Schema): Schema => (s?.$ref ? resolve(doc.components.schemas[s.$ref.split('/').pop()]!) : s)

/** What a schema says of its values (its descriptions aside), as growth mcp is to keep it: see cli/src/mcp/schema.ts for the three liberties it takes. */
function signature(input: Schema): Schema {
  const s = resolve(input)
  const out: Schema = {}
  for (const key of ['type', 'const', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'maxProperties', 'dependentRequired']) {
    if (s[key] === undefined) continue
    if ((key === 'minimum' || key === 'maximum') && Math.abs(s[key]) >= Number.MAX_SAFE_INTEGER) continue
    out[key] = s[key]
  }
  if (s.enum && s.enum.length <= 32) out.enum = s.enum
  if (s.required) out.required = [...s.required].sort()
  if (s.additionalProperties === false) out.additionalProperties = false
  else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    // "Any JSON value" (the document's `{}`) is said in so many words in a tool's schema.
    out.additionalProperties = Object.keys(s.additionalProperties).length ? signature(s.additionalProperties) : { type: ANY_JSON }
  }
  if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, signature(v as Schema)]))
  if (s.items) out.items = signature(s.items)
  for (const key of ['anyOf', 'oneOf']) if (s[key]) out[key] = s[key].map(signature)
  return out
}

/** The arguments an operation's tool takes, by the document: name -> the schemas it may have, and which are required. */
function expectedArguments(op: any): { args: Map<string, Schema[]>; required: string[] } {
  const args = new Map<string, Schema[]>()
  const required: string[] = []
  const paging = op['x-paging']?.param
  for (const p of op.parameters ?? []) {
    if (p.$ref || p.in !== 'query') continue
    const name = p.name === paging ? 'cursor' : p.name
    args.set(name, [p.schema])
    if (p.required) required.push(name)
  }
  const body = op.requestBody?.content?.['application/json']?.schema
  if (body) {
    const variants = (resolve(body).oneOf ?? [body]).map(resolve)
    for (const v of variants) for (const [name, s] of Object.entries(v.properties ?? {})) args.set(name, [...(args.get(name) ?? []), s as Schema])
    for (const name of args.keys()) if (variants.every((v: Schema) => v.required?.includes(name))) required.push(name)
  }
  return { args, required }
}

describe('growth mcp tools/list', () => {
  test('every operation the SDK has a method for is one tool: a workspace token with every scope sees each workspace operation, an agent credential the three gateway tools', () => {
    const ops = operations()
    expect(ops.length).toBeGreaterThan(20)
    expect(liveTools.map((t) => t.name).sort()).toEqual(ops.filter((o) => !o.agent).map((o) => o.operationId).sort())
    expect(agentTools.map((t) => t.name).sort()).toEqual(ops.filter((o) => o.agent).map((o) => AGENT_TOOLS[o.operationId] ?? `(no tool for ${o.operationId})`).sort())
  })

  test("each tool's input schema is its operation's parameters or body, as the served document declares them; its description is the operation's (an agent's tool: in a model's terms)", () => {
    const tools = new Map([...liveTools, ...agentTools].map((t) => [t.name, t]))
    for (const { operationId, op, agent: isAgent } of operations()) {
      const tool = tools.get(isAgent ? AGENT_TOOLS[operationId]! : operationId)!
      const where = `${tool.name} (${operationId})`
      expect(`${where}: ${tool.inputSchema.type}`).toBe(`${where}: object`)
      expect(`${where}: ${tool.description?.includes(`${op.summary}.`)}`).toBe(`${where}: true`)
      if (isAgent) {
        // What a model cannot act on: status codes, error codes, the API's paths.
        expect({ where, http: tool.description?.match(/\b[1-5]\d\d\b|plan_required|\b(GET|POST) \/|\/agents?\//g) ?? [] }).toEqual({ where, http: [] })
      } else {
        expect(`${where}: ${tool.description?.includes(op.description)}`).toBe(`${where}: true`)
      }
      const { args, required } = expectedArguments(op)
      const props = (tool.inputSchema.properties ?? {}) as Record<string, Schema>
      expect({ where, args: Object.keys(props).sort() }).toEqual({ where, args: [...args.keys()].sort() })
      expect({ where, required: [...(tool.inputSchema.required ?? [])].sort() }).toEqual({ where, required: required.sort() })
      for (const [name, schemas] of args) {
        const prop = props[name]!
        const at = `${where} ${name}`
        if (name === 'limit') {
          // The tool's default is at most 20 (what a model's context holds); the bounds are the API's.
          const s = resolve(schemas[0]!)
          expect({ at, min: prop.minimum, max: prop.maximum, type: prop.type }).toEqual({ at, min: s.minimum, max: s.maximum, type: s.type })
          expect(prop.default).toBe(Math.min(20, s.default))
          continue
        }
        const distinct = schemas.map(signature).filter((s, i, all) => all.findIndex((x) => JSON.stringify(x) === JSON.stringify(s)) === i)
        if (distinct.length === 1) {
          expect({ at, schema: signature(prop) }).toEqual({ at, schema: distinct[0]! })
        } else if (prop.enum) {
          // The shapes' discriminator (kind): every value of every shape.
          expect({ at, values: [...prop.enum].sort() }).toEqual({ at, values: schemas.flatMap((s) => (resolve(s).const !== undefined ? [resolve(s).const] : resolve(s).enum)).sort() })
        } else {
          // A member that differs by shape: one option per distinct schema.
          expect({ at, options: prop.anyOf.map(signature) }).toEqual({ at, options: distinct })
        }
      }
    }
  })

  test('facts are typed in request_permission as the contract has them', () => {
    const facts = (agentTools.find((t) => t.name === 'request_permission')!.inputSchema.properties as any).facts
    const types = Object.fromEntries(Object.entries(facts.properties).map(([k, v]: [string, any]) => [k, v.type]))
    expect(types).toEqual({ amountMinor: 'integer', currency: 'string', amountPercent: 'number', increase: 'boolean', recipients: 'integer', records: 'integer' })
    expect(facts.properties.currency.pattern).toBe('^[A-Z]{3}$')
    expect(facts.properties.amountMinor.minimum).toBe(0)
    expect(facts.additionalProperties).toBe(false)
    expect(facts.dependentRequired).toEqual({ amountMinor: ['currency'] })
  })

  test("request_permission's params is a schema that says what it takes: an object of named values, each any JSON value", () => {
    const params = (agentTools.find((t) => t.name === 'request_permission')!.inputSchema.properties as any).params
    expect(params.type).toBe('object')
    expect(params.description).toContain('The parameters of the action')
    expect(params.additionalProperties).toEqual({ type: ANY_JSON, description: expect.stringContaining('Any JSON value') })
  })

  test('every tool has an outputSchema: an object, its answer built from the response model of its operation, or a tool error', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    const models = new Map(operations().map(({ operationId, op, agent: isAgent }) => [isAgent ? AGENT_TOOLS[operationId]! : operationId, op]))
    for (const tool of [...liveTools, ...agentTools]) {
      const schema = tool.outputSchema as Schema | undefined
      expect(`${tool.name}: ${schema?.type}`).toBe(`${tool.name}: object`)
      expect(() => ajv.compile(schema!)).not.toThrow()
      const [answer, error] = schema!.anyOf
      expect(error.properties.error.required).toEqual(['code', 'message', 'requestId'])
      // The answer's data (a workspace tool) or members (an agent tool) are the operation's 2xx data.
      const op = models.get(tool.name)!
      const data = resolve(resolve(op.responses['201'] ?? op.responses['200']).content['application/json'].schema).properties.data
      const model = resolve(data)
      if (tool.name in Object.fromEntries(Object.values(AGENT_TOOLS).map((n) => [n, 1]))) {
        // An answer of one shape per decision (oneOf): the members of every shape.
        const members = (model.oneOf ?? [model]).flatMap((shape: Schema) => Object.keys(shape.properties))
        for (const member of members) expect(`${tool.name}.${member}: ${member in answer.properties}`).toBe(`${tool.name}.${member}: true`)
      } else {
        const shown = answer.properties.data.anyOf?.[0] ?? answer.properties.data
        expect({ tool: tool.name, data: signature(shown) }).toEqual({ tool: tool.name, data: signature(data) })
      }
    }
  })

  test("a real call's structuredContent validates against the tool's outputSchema: a list, a read, a write, the agent's tools, a tool error", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    const byName = new Map([...liveTools, ...agentTools].map((t) => [t.name, t]))
    const calls: [Connected, string, Record<string, unknown>][] = [
      [live, 'listDecisions', { limit: 2 }],
      [live, 'listMissions', {}],
      [live, 'getOutcomes', {}],
      [live, 'getUsage', {}],
      [live, 'trackEvent', { event: 'checkout.abandoned', email: 'mcp.output@example.com', properties: { cartValueMinor: 6400, currency: 'USD' } }],
      [live, 'listDecisions', { limit: 'two' }],
      [agent, 'my_profile', {}],
      [agent, 'request_permission', { tool: 'ads', action: 'pause_campaign', resource: 'cmp_1', summary: 'Pause it', params: { campaignId: 'cmp_1', nested: { a: [1, null] } } }],
      [agent, 'report_result', { authorizationId: 'auth_00000000000000000000000000', status: 'failed', error: 'timed out' }],
    ]
    for (const [c, name, args] of calls) {
      const r = await callTool(c, name, args)
      const validate = ajv.compile(byName.get(name)!.outputSchema!)
      const valid = validate(r.structuredContent)
      expect({ name, args, errors: valid ? null : validate.errors }).toEqual({ name, args, errors: null })
    }
  }, 30_000)

  test("a token sees only the tools of its scopes: a read-only token has no write tool, and write:actions opens createAction alone", async () => {
    const { sql } = await getHarness()
    const scopeOf = new Map(operations().filter((o) => !o.agent).map((o) => [o.operationId, o.op['x-scope'] as string]))
    const readOnly = await createToken(sql, { workspaceId: ws.id, scopes: 'read:growth,read:contacts,read:analytics' })
    const proposer = await createToken(sql, { workspaceId: ws.id, scopes: 'read:growth,write:actions' })
    const [a, b] = await Promise.all([connect('stdio', readOnly.token), connect('stdio', proposer.token)])
    try {
      const [ta, tb] = await Promise.all([a.client.listTools(), b.client.listTools()])
      const names = (tools: Tool[]) => tools.map((t) => t.name).sort()
      expect(names(ta.tools)).toEqual([...scopeOf].filter(([, s]) => ['read:growth', 'read:contacts', 'read:analytics'].includes(s)).map(([n]) => n).sort())
      expect(ta.tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true)
      expect(names(ta.tools)).not.toContain('createAction')
      expect(names(tb.tools)).toContain('createAction')
      expect(names(tb.tools)).not.toContain('createExperiment')
      expect(names(tb.tools)).not.toContain('importContacts')
      expect(tb.tools.filter((t) => t.annotations?.readOnlyHint === false).map((t) => t.name)).toEqual(['createAction'])
      // The scopes it found, in the log a desktop client keeps.
      expect(a.stderr()).toContain('(scopes: read:analytics, read:contacts, read:growth)')
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  }, 30_000)
})
