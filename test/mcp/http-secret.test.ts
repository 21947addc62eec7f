import { beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../cli/run.ts'
import { makeWorkspace, type Workspace } from '../harness.ts'
import { envFor, readAll, SECRET_LINE } from './support.ts'

/**
 * `growth mcp --http` answers only requests that carry its secret (Authorization: Bearer), so no
 * other local process can use the token it serves: a real `growth mcp --http` process, real HTTP.
 */

let ws: Workspace

beforeAll(async () => {
  ws = await makeWorkspace()
}, 30_000)

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }

function post(url: string, body: object, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) })
}

/** `growth mcp --http 0 ...args` running until `fn` is done; its URL and stderr. */
async function serving(args: string[], fn: (url: string, stderr: () => string) => Promise<void>) {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'mcp', '--http', '0', ...args], { cwd: ROOT, env: await envFor(ws.live), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const err = readAll(proc.stderr)
  try {
    const url = await err.waitFor(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/, proc)
    await err.waitFor(/clients must send the header.*\n/, proc)
    await fn(url, () => err.text)
  } finally {
    proc.kill('SIGTERM')
    expect(await proc.exited).toBe(0)
  }
}

/** `growth mcp ...args` expected to refuse to start. */
async function refused(args: string[]) {
  const proc = Bun.spawn([process.execPath, 'cli/bin/growth.ts', 'mcp', ...args], { cwd: ROOT, env: await envFor(ws.live), stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  return { code: await proc.exited, stderr: await new Response(proc.stderr).text() }
}

describe('growth mcp --http: the secret', () => {
  test('a request without the secret, or with a wrong one, is 401 saying what is missing; with it, the session opens; the secret is printed once', async () => {
    await serving([], async (url, stderr) => {
      const secret = SECRET_LINE.exec(stderr())![1]!
      expect(secret.length).toBeGreaterThanOrEqual(40)
      expect(stderr().split(secret).length - 1).toBe(1)

      const none = await post(url, INIT)
      expect(none.status).toBe(401)
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="growth mcp"')
      const noneBody = await none.json()
      expect(noneBody).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringContaining('No Authorization header') }, id: null })
      expect(noneBody.error.message).toContain('Authorization: Bearer <secret>')

      const wrong = await post(url, INIT, { authorization: `Bearer ${secret.slice(0, -1)}x` })
      expect(wrong.status).toBe(401)
      expect((await wrong.json()).error.message).toContain('does not match')
      const basic = await post(url, INIT, { authorization: `Basic ${btoa(`x:${secret}`)}` })
      expect(basic.status).toBe(401)
      expect((await basic.json()).error.message).toContain('is not "Bearer <secret>"')

      const right = await post(url, INIT, { authorization: `Bearer ${secret}` })
      expect(right.status).toBe(200)
      await right.text()
      const session = right.headers.get('mcp-session-id')!
      expect(session).toBeTruthy()
      // A session id alone is not a pass: every request carries the secret.
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' }
      const bare = await post(url, list, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' })
      expect(bare.status).toBe(401)
      const listed = await post(url, list, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18', authorization: `Bearer ${secret}` })
      expect(listed.status).toBe(200)
      expect(await listed.text()).toContain('listDecisions')
    })
  }, 30_000)

  test('--http-secret-file: a file only its owner reads gives the secret (not printed); one others may read, or a short one, is refused naming the fix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'growth-mcp-secret-'))
    const file = join(dir, 'secret')
    const kept = `kept_${'k'.repeat(40)}`
    writeFileSync(file, `${kept}\n`)
    chmodSync(file, 0o644)
    const open = await refused(['--http', '0', '--http-secret-file', file])
    expect(open).toEqual({ code: 1, stderr: `error: --http-secret-file ${file} may be read by others (mode 644): make it the owner's alone with chmod 600 ${file}\n` })

    chmodSync(file, 0o600)
    await serving(['--http-secret-file', file], async (url, stderr) => {
      expect(stderr()).not.toContain(kept)
      expect(stderr()).toContain(`Authorization: Bearer <the secret in ${file}>`)
      expect((await post(url, INIT, { authorization: 'Bearer mcp_not_it_at_all_not_it_at_all_not_it' })).status).toBe(401)
      const right = await post(url, INIT, { authorization: `Bearer ${kept}` })
      expect(right.status).toBe(200)
      await right.text()
    })

    const short = join(dir, 'short')
    writeFileSync(short, 'hunter2\n', { mode: 0o600 })
    const weak = await refused(['--http', '0', '--http-secret-file', short])
    expect(weak.code).toBe(1)
    expect(weak.stderr).toContain(`--http-secret-file ${short} must hold one secret of at least 32 characters`)
  }, 30_000)

  test('a --host beyond this machine is refused without --http-secret-file; --http-secret-file without --http is refused', async () => {
    const wide = await refused(['--http', '0', '--host', '0.0.0.0'])
    expect(wide.code).toBe(1)
    expect(wide.stderr).toStartWith('error: --host 0.0.0.0 serves beyond this machine: give the secret clients must send with --http-secret-file FILE')
    const stdio = await refused(['--http-secret-file', '/nonexistent'])
    expect(stdio).toEqual({ code: 1, stderr: 'error: --http-secret-file is for --http: over stdio the client that starts growth mcp is the only one it answers\n' })
  }, 30_000)
})
