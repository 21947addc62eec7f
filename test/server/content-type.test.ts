import { describe, expect, test } from 'bun:test'
import { operations } from '../../server/src/http/operations.ts'
import { call, expectError, getHarness, makeWorkspace } from '../harness.ts'

/**
 * A write's body is read only when its Content-Type says JSON: the declared example body, sent as
 * text/plain, XML, a form, multipart, with another charset or with no Content-Type at all, is
 * 400 invalid_body naming the header, on every write of the route table (so a new one is covered
 * as it is added); application/json in any case, with charset=utf-8, is read.
 */
const writes = operations.flatMap((op) => (op.kind === 'write' ? [op] : []))

const REFUSED = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/xml',
  'text/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json-patch+json',
  'application/jsonx',
  'application/json; charset=iso-8859-1',
]
const ACCEPTED = ['application/json', 'Application/JSON; Charset="UTF-8"', 'application/json;charset=utf-8']

describe('Content-Type of a write', () => {
  test('the table has writes (so the tests below test something)', () => {
    expect(writes.map((op) => op.operationId)).toEqual(expect.arrayContaining(['createExperiment', 'createAction', 'importContacts', 'trackEvent', 'authorizeAgentAction', 'reportAgentResult']))
  })

  for (const op of writes) {
    test(`POST ${op.path} (${op.operationId}) refuses its example body unless sent as application/json`, async () => {
      const ws = await makeWorkspace()
      const token = op.auth.kind === 'agent' ? ws.agent.credential : ws.test
      const path = `/api/v1${op.path}`
      const body = JSON.stringify(op.example.body)
      for (const type of REFUSED) {
        expectError(await call('POST', path, { token, body, headers: { 'Content-Type': type } }), 400, 'invalid_body', 'Content-Type')
      }
      // No Content-Type at all (a byte body: fetch adds none).
      const { url } = await getHarness()
      const bare = await fetch(`${url}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: new TextEncoder().encode(body) })
      expect(bare.headers.get('content-type')).toBe('application/json; charset=utf-8')
      const refusal = (await bare.json()) as { error: { code: string; message: string } }
      expect(bare.status).toBe(400)
      expect(refusal.error.code).toBe('invalid_body')
      expect(refusal.error.message).toContain('Content-Type')
      // A real form and a real multipart body are refused the same way.
      const multipart = new FormData()
      multipart.set('body', body)
      for (const form of [new URLSearchParams({ body }), multipart]) {
        const r = await fetch(`${url}${path}`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form })
        expect(r.status).toBe(400)
        expect(((await r.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'invalid_body', message: expect.stringContaining('Content-Type') })
      }
      // application/json, in any case and with charset=utf-8, is read: the answers are those of the body itself.
      const answers = []
      for (const type of ACCEPTED) {
        const r = await call('POST', path, { token, body, headers: { 'Content-Type': type } })
        answers.push([r.status, r.body?.error?.code ?? 'ok'])
      }
      expect(answers[0]![1]).not.toBe('invalid_body')
      expect(answers).toEqual([answers[0]!, answers[0]!, answers[0]!])
    })
  }
})
