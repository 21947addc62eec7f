import { expect, test } from 'bun:test'
import { connect } from 'node:net'
import { call, getHarness, makeWorkspace } from '../harness.ts'

/**
 * A refused Idempotency-Key in the request log (GET /api/v1/logs): kept in a printable form, never
 * as received, so a caller's control or bidi characters never reach whoever reads the log (the
 * console, growth logs tail). HTTP carries a header's bytes (fetch refuses to send these at all):
 * the calls here are written on a raw connection.
 */

/** POST /api/v1/experiments with the key's bytes as its Idempotency-Key header; the answer's request id. */
async function postWithKey(token: string, key: Buffer): Promise<string> {
  const { url } = await getHarness()
  const { hostname, port } = new URL(url)
  const body = '{}'
  const head = `POST /api/v1/experiments HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\nIdempotency-Key: `
  const request = Buffer.concat([Buffer.from(head), key, Buffer.from(`\r\n\r\n${body}`)])
  const answer = await new Promise<string>((resolve, reject) => {
    let out = ''
    const socket = connect(Number(port), hostname, () => socket.write(request))
    socket.on('data', (d) => (out += d))
    socket.on('error', reject)
    socket.on('close', () => resolve(out))
  })
  expect(answer).toStartWith('HTTP/1.1 400 ')
  expect(answer).toContain('Idempotency-Key must be')
  return /x-request-id: (req_\w+)/i.exec(answer)![1]!
}

test('a refused Idempotency-Key is kept printable: each character outside visible ASCII as its \\u escape, a long one cut to 255 with …', async () => {
  const ws = await makeWorkspace()
  const bidi = await postWithKey(ws.live, Buffer.from('refund-\u202etxt.exe', 'utf8'))
  const nel = await postWithKey(ws.live, Buffer.from([0x61, 0x85, 0x62]))
  const latin = await postWithKey(ws.live, Buffer.from('caf\u00e9', 'latin1'))
  const long = await postWithKey(ws.live, Buffer.from(`${'k'.repeat(250)}\u00e9\u00e9\u00e9`, 'latin1'))
  const plainLong = await postWithKey(ws.live, Buffer.from('x'.repeat(300)))
  const ids = [bidi, nel, latin, long, plainLong]
  let entries: { id: string; idempotencyKey: string | null }[] = []
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await Bun.sleep(50)) {
    entries = (await call('GET', '/api/v1/logs?limit=100', { token: ws.live })).body.data
    if (ids.every((id) => entries.some((e) => e.id === id))) break
  }
  const keyOf = (id: string) => entries.find((e) => e.id === id)?.idempotencyKey
  // The UTF-8 bytes of U+202E arrive one character per byte: each is shown, none acts.
  expect(keyOf(bidi)).toBe('refund-\\u00e2\\u0080\\u00aetxt.exe')
  expect(keyOf(nel)).toBe('a\\u0085b')
  expect(keyOf(latin)).toBe('caf\\u00e9')
  // Cut to 255 characters, never inside an escape.
  expect(keyOf(long)).toBe(`${'k'.repeat(250)}…`)
  expect(keyOf(plainLong)).toBe(`${'x'.repeat(254)}…`)
  for (const id of ids) expect(keyOf(id)).toMatch(/^[\x20-\x7e]*…?$/)
})
