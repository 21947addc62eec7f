import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AuthenticationError, Growth, GrowthError, InternalServerError, NotFoundError } from '../../sdk/src/index.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * The code of each error class is what its status always carries (the spec's error table), so that
 * `NotFoundError.code` can be typed `'not_found'` and be true: an answer without the API's error
 * envelope (a proxy's or a load balancer's page) gets its status's code, and an answer whose code
 * its status never carries is a plain GrowthError with the code as sent. A real HTTP server plays
 * the proxy in front of the API.
 */
let server: ReturnType<typeof Bun.serve>
const html = (status: number) => new Response(`<html><body>${status}</body></html>`, { status, headers: { 'Content-Type': 'text/html' } })
const envelope = (status: number, code: string) =>
  Response.json({ error: { code, message: `Scripted ${status} ${code}.`, requestId: 'req_scripted' } }, { status })

beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname
      if (path === '/api/v1/missions') return html(404)
      if (path === '/api/v1/usage') return html(502)
      if (path === '/api/v1/connections') return envelope(404, 'conflict')
      return envelope(404, 'not_found')
    },
  })
})
afterAll(() => server.stop(true))

const refusal = async (call: (growth: Growth) => Promise<unknown>): Promise<GrowthError> => {
  const growth = new Growth({ token: 'svc_live_scripted', baseUrl: `http://127.0.0.1:${server.port}/api/v1`, maxRetries: 0 })
  try {
    await call(growth)
  } catch (err) {
    return err as GrowthError
  }
  throw new Error('the call was not refused')
}

describe("an error's code is what its status carries", () => {
  test('a 404 with the envelope: NotFoundError, code not_found', async () => {
    const err = await refusal((g) => g.agents.list())
    expect(err).toBeInstanceOf(NotFoundError)
    expect({ status: err.status, code: err.code, requestId: err.requestId }).toEqual({ status: 404, code: 'not_found', requestId: 'req_scripted' })
  })

  test("a 404 without the envelope (a proxy's page): NotFoundError, code not_found, the message saying there was no envelope", async () => {
    const err = await refusal((g) => g.missions.list())
    expect(err).toBeInstanceOf(NotFoundError)
    expect({ status: err.status, code: err.code }).toEqual({ status: 404, code: 'not_found' })
    expect(err.message).toContain('404 with no error envelope')
  })

  test("a 502 without the envelope (a load balancer's page): InternalServerError, code internal", async () => {
    const err = await refusal((g) => g.usage.get())
    expect(err).toBeInstanceOf(InternalServerError)
    expect({ status: err.status, code: err.code }).toEqual({ status: 502, code: 'internal' })
  })

  test('a 404 carrying a code no 404 carries: a plain GrowthError, with the code as sent', async () => {
    const err = await refusal((g) => g.connections.list())
    expect(err).toBeInstanceOf(GrowthError)
    expect(err).not.toBeInstanceOf(NotFoundError)
    expect({ name: err.name, status: err.status, code: err.code }).toEqual({ name: 'GrowthError', status: 404, code: 'conflict' })
  })

  test("a page that is not the API's (baseUrl at the toolkit's console, not its /api/v1): the error is one line, names the call and asks about baseUrl", async () => {
    const { url } = await getHarness()
    const ws = await makeWorkspace()
    const growth = new Growth({ token: ws.live, baseUrl: `${url}/console`, maxRetries: 0 })
    const err = await growth.track({ event: 'signup.completed', email: 'a@example.com' }).then(
      () => {
        throw new Error('the call was not refused')
      },
      (e: unknown) => e as GrowthError,
    )
    expect(err).toBeInstanceOf(AuthenticationError)
    expect({ status: err.status, code: err.code }).toEqual({ status: 401, code: 'unauthorized' })
    expect(err.message).not.toContain('\n')
    expect(err.message).toStartWith(`401 with no error envelope from POST ${url}/console/track: is baseUrl the API's /api/v1? The answer began: <!doctype html>`)
    expect(err.message.length).toBeLessThan(400)
  })

  test("a load balancer's page keeps to one line too, without the question about baseUrl", async () => {
    const err = await refusal((g) => g.usage.get())
    expect(err.message).toBe(`502 with no error envelope from GET http://127.0.0.1:${server.port}/api/v1/usage: <html><body>502</body></html>`)
  })
})
