import { afterAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkReceived } from '../support/event-models.ts'
import { attemptsOf, endpoint, importContacts, receiver, rig, until } from './support.ts'

/**
 * The private-address guard at send time, and TLS. The resolver is played by the test: a name that
 * resolves to a public address when the endpoint is saved and to a private one when a delivery is
 * sent (DNS rebinding) is refused at send, recorded, and nothing is sent. A name on https goes to
 * the address that passed, with the name kept for SNI, the certificate check and the Host header.
 */

const dir = mkdtempSync(join(tmpdir(), 'growth-tls-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A certificate for `hooks.example.test`, made with openssl for this run. */
function certificate() {
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=hooks.example.test',
    '-addext', 'subjectAltName=DNS:hooks.example.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' })
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') }
}

function tlsReceiver(tls: { key: string; cert: string }) {
  const got: { host: string; body: string }[] = []
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', tls, async fetch(req) {
    got.push({ host: req.headers.get('host') ?? '', body: await req.text() })
    checkReceived(got.at(-1)!.body)
    return new Response('ok')
  } })
  return { port: server.port, got, stop: () => server.stop(true) }
}

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

describe('at send time', () => {
  test('a name that resolved publicly when saved and privately when sent (DNS rebinding) is not sent to: a failed attempt, recorded', async () => {
    const rcv = receiver()
    let resolution = ['93.184.216.34']
    const resolve = async () => resolution
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '10s', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '' }, { resolve })
    try {
      // saved: the name resolves to a public address, and the URL is https
      const e = await endpoint(r, `https://rebind.example.test:${rcv.port}/hooks`, 'contact.created', { resolve })
      for (const [n, privateAddress] of ['127.0.0.1', '169.254.169.254'].entries()) {
        resolution = [privateAddress]
        await importContacts(r.ws, 1)
        await until(`attempt ${n + 1}`, async () => (await attemptsOf(e.id)).length === n + 1)
      }
      const attempts = await attemptsOf(e.id)
      expect(attempts.map((a) => a.address)).toEqual([null, null])
      expect(attempts[0]!.error).toContain('127.0.0.1 is a loopback address')
      // the refusal says how to allow it for local development; never for a metadata address
      expect(attempts[0]!.error).toContain('set WEBHOOK_ALLOW_PRIVATE_NETWORKS=127.0.0.0/8')
      expect(attempts[1]!.error).toContain('169.254.169.254 is a cloud metadata address')
      expect(attempts[1]!.error).not.toContain('for local development')
      expect(rcv.got).toEqual([])
    } finally {
      rcv.stop()
      await r.done()
    }
  })

  test('cloud metadata addresses are refused even inside a range the operator exempted', async () => {
    const resolve = async () => ['169.254.169.254']
    const r = await rig({ WEBHOOK_RETRY_SCHEDULE: '10s', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '169.254.0.0/16' }, { resolve })
    try {
      await expect(endpoint(r, 'http://metadata.example.test/latest', 'contact.created', { resolve })).rejects.toThrow('cloud metadata')
    } finally {
      await r.done()
    }
  })

  test.skipIf(!hasOpenssl)('https: the connection goes to the address that passed, with the name for SNI, the certificate and Host; an untrusted certificate is a TLS failure', async () => {
    const tls = certificate()
    const rcv = tlsReceiver(tls)
    const resolve = async (name: string) => (name === 'hooks.example.test' ? ['127.0.0.1'] : [])
    const trusting = await rig({ WEBHOOK_RETRY_SCHEDULE: '10s' }, { resolve, ca: tls.cert })
    try {
      const e = await endpoint(trusting, `https://hooks.example.test:${rcv.port}/hooks`, 'contact.created', { resolve })
      await importContacts(trusting.ws, 1)
      await until('a delivery over TLS', () => rcv.got.length === 1)
      expect(rcv.got[0]!.host).toBe(`hooks.example.test:${rcv.port}`)
      await until('the attempt', async () => (await attemptsOf(e.id)).length === 1)
      expect((await attemptsOf(e.id))[0]).toMatchObject({ status_code: 200, address: '127.0.0.1', error: null })
    } finally {
      await trusting.done()
    }
    const untrusting = await rig({ WEBHOOK_RETRY_SCHEDULE: '10s' }, { resolve })
    try {
      const e = await endpoint(untrusting, `https://hooks.example.test:${rcv.port}/hooks`, 'contact.created', { resolve })
      await importContacts(untrusting.ws, 1)
      await until('the attempt', async () => (await attemptsOf(e.id)).length === 1)
      const [a] = await attemptsOf(e.id)
      expect(a!.status_code).toBeNull()
      expect(a!.error).toStartWith('TLS failure')
      expect(rcv.got).toHaveLength(1)
    } finally {
      rcv.stop()
      await untrusting.done()
    }
  })
})
