import { describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { MAX_URL_LENGTH } from '../../server/src/http/app.ts'
import { getHarness, makeWorkspace } from '../harness.ts'

/**
 * How long a request head may be (docs/operations.md, "Request size"): a URL over 8 KiB is 414 in
 * the envelope, naming the limit; a head over 16 KiB (a long header, a 1 MB query string) is
 * answered by Bun itself with a bare 431 and the connection closed: an answer, never a hang.
 */

/** Send `head` on a raw connection; what came back before the server closed it (or TIMEOUT). */
function raw(port: number, head: string, waitMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    let out = ''
    const socket = connect(port, '127.0.0.1', () => socket.write(head))
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(`TIMEOUT after ${waitMs} ms: ${out}`)
    }, waitMs)
    socket.on('data', (d) => (out += d))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(out)
    })
  })
}

describe('request size', () => {
  test(`a URL over ${MAX_URL_LENGTH} characters is 414 in the envelope naming the limit; one under it is read`, async () => {
    const { url } = await getHarness()
    const ws = await makeWorkspace()
    const auth = { Authorization: `Bearer ${ws.live}` }
    const long = await fetch(`${url}/api/v1/missions?status=${'a'.repeat(MAX_URL_LENGTH)}`, { headers: auth })
    expect(long.status).toBe(414)
    expect(long.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const body = (await long.json()) as { error: { code: string; message: string; requestId: string } }
    expect(body.error.code).toBe('invalid_request')
    expect(body.error.message).toContain(`at most ${MAX_URL_LENGTH} characters`)
    expect(body.error.requestId).toBe(long.headers.get('x-request-id')!)
    // Just under the limit, the URL reaches the operation, which names what is wrong with it.
    const under = await fetch(`${url}/api/v1/missions?status=${'a'.repeat(MAX_URL_LENGTH - url.length - 40)}`, { headers: auth })
    expect(under.status).toBe(400)
    expect(((await under.json()) as { error: { code: string } }).error.code).toBe('invalid_parameter')
  })

  test('a head over 16 KiB and a 1 MB query string are answered 431 and the connection closed, not left hanging', async () => {
    const port = Number(new URL((await getHarness()).url).port)
    const bigHeader = await raw(port, `GET /api/v1/missions HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
    expect(bigHeader).toStartWith('HTTP/1.1 431 ')
    const bigQuery = await raw(port, `GET /api/v1/missions?q=${'a'.repeat(1_000_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(bigQuery).toStartWith('HTTP/1.1 431 ')
    const { url } = await getHarness()
    const viaFetch = await fetch(`${url}/api/v1/missions?q=${'a'.repeat(1_000_000)}`)
    expect(viaFetch.status).toBe(431)
    // The server still answers afterwards.
    expect((await fetch(`${url}/api/v1/missions`)).status).toBe(401)
  })
})
