import { expect, test } from 'bun:test'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { newSecret, signatureHeader, standardHeaders } from '../../server/src/domain/webhook-signature.ts'
import { CLI_TIMEOUT, growthIn } from './run.ts'

/** growth webhooks verify: a saved delivery checked offline, signed here by the server's own signer. */
const dir = mkdtempSync(join(tmpdir(), 'growth-verify-'))
const growth = growthIn(dir)
const body = JSON.stringify({ id: 'evt_saved', event: 'contact.created', createdAt: '2026-11-23T00:00:00.000Z', workspaceId: 'ws_x', data: { contact: { name: 'Zoë' } } })
const file = join(dir, 'delivery.json')
writeFileSync(file, body)
const now = () => Math.floor(Date.now() / 1000)

test(
  'a delivery signed with the secret verifies (exit 0), during a rotation too; --json prints the event',
  async () => {
    const header = signatureHeader(body, ['whsec_new', 'whsec_old'], now())
    const r = await growth(['webhooks', 'verify', '--secret', 'whsec_old', '--header', header, file])
    expect(r).toMatchObject({ code: 0, stderr: '' })
    expect(r.stdout).toMatch(/^Verified: contact\.created evt_saved, signed \d{4}-/)
    const j = await growth(['webhooks', 'verify', '--secret', 'whsec_x', '--secret', 'whsec_new', '--header', header, file, '--json'])
    expect(JSON.parse(j.stdout)).toEqual(JSON.parse(body))
  },
  CLI_TIMEOUT,
)

test(
  'each refusal exits 1 with the reason: a wrong secret, a changed body, an old signature (unless --tolerance none), a malformed header',
  async () => {
    const header = signatureHeader(body, ['whsec_new'], now())
    const wrong = await growth(['webhooks', 'verify', '--secret', 'whsec_other', '--header', header, file])
    expect(wrong).toMatchObject({ code: 1, stdout: '' })
    expect(wrong.stderr).toStartWith('error: no_matching_signature: ')
    const changed = join(dir, 'changed.json')
    writeFileSync(changed, body.replace('Zoë', 'Zoe'))
    expect((await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', header, changed])).stderr).toStartWith('error: no_matching_signature: ')
    const old = signatureHeader(body, ['whsec_new'], now() - 3_600)
    const stale = await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', old, file, '--json'])
    expect(stale.code).toBe(1)
    expect(JSON.parse(stale.stderr).error.code).toBe('timestamp_too_old')
    expect((await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', old, '--tolerance', 'none', file])).code).toBe(0)
    expect((await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', 'v1=abc', file])).stderr).toStartWith('error: malformed_header: ')
    const missing = await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', header, join(dir, 'nothing.json')])
    expect(missing).toMatchObject({ code: 1, stdout: '' })
    expect(missing.stderr).toContain('cannot read')
  },
  CLI_TIMEOUT,
)

test(
  "a refusal's advice is the command's own: --tolerance none for a delivery saved earlier, and webhook-signature's value alone is told to come as 'Name: value' with its two headers",
  async () => {
    const old = signatureHeader(body, ['whsec_new'], now() - 3_600)
    const stale = await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', old, file])
    expect(stale.code).toBe(1)
    expect(stale.stderr).toStartWith('error: timestamp_too_old: ')
    expect(stale.stderr).toContain('--tolerance none')
    expect(stale.stderr).not.toContain('tolerance: Infinity')
    const standard = await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', 'v1,BBoaa0fS2JhWcfdG8Phwlj4lLNzKDv+W0c1j3R8oHfU=', file])
    expect(standard.code).toBe(1)
    expect(standard.stderr).toStartWith('error: malformed_header: ')
    expect(standard.stderr).toContain("give each as --header 'Name: value'")
    expect(standard.stderr).not.toContain("request's headers whole")
  },
  CLI_TIMEOUT,
)

test(
  "a delivery saved with its Standard Webhooks headers, each given as --header 'Name: value' (any case), verifies by webhook-signature; a changed id, a missing header or a wrong secret is refused",
  async () => {
    const secret = newSecret()
    const t = now()
    const std = standardHeaders('evt_saved', body, [secret], t)
    const named = (h: Record<string, string>) => Object.entries(h).flatMap(([k, v]) => ['--header', `${k}: ${v}`])
    const r = await growth(['webhooks', 'verify', '--secret', secret, ...named(std), file])
    expect(r).toMatchObject({ code: 0, stderr: '' })
    expect(r.stdout.trim()).toBe(`Verified (webhook-signature): contact.created evt_saved, signed ${new Date(t * 1000).toISOString()}`)
    // Header names as a saved request may spell them; X-Service-Signature beside them is not needed.
    const shouted = await growth(['webhooks', 'verify', '--secret', secret, '--header', `Webhook-Id: ${std['webhook-id']}`, '--header', `WEBHOOK-TIMESTAMP:${std['webhook-timestamp']}`, '--header', `webhook-signature: ${std['webhook-signature']}`, file, '--json'])
    expect(JSON.parse(shouted.stdout)).toEqual(JSON.parse(body))

    const otherId = await growth(['webhooks', 'verify', '--secret', secret, ...named({ ...std, 'webhook-id': 'evt_other' }), file])
    expect(otherId).toMatchObject({ code: 1, stdout: '' })
    expect(otherId.stderr).toStartWith('error: no_matching_signature: ')
    const noId = await growth(['webhooks', 'verify', '--secret', secret, ...named({ 'webhook-timestamp': std['webhook-timestamp'], 'webhook-signature': std['webhook-signature'] }), file])
    expect(noId.stderr).toStartWith('error: missing_header: No webhook-id header')
    const wrong = await growth(['webhooks', 'verify', '--secret', newSecret(), ...named(std), file])
    expect(wrong.stderr).toStartWith('error: no_matching_signature: ')
    const twice = await growth(['webhooks', 'verify', '--secret', secret, ...named(std), '--header', 'webhook-id: evt_again', file])
    expect(twice).toMatchObject({ code: 1, stdout: '' })
    expect(twice.stderr).toContain('--header webhook-id is given twice')
    // X-Service-Signature given as a named header, the Standard ones absent: checked by it.
    const xs = await growth(['webhooks', 'verify', '--secret', 'whsec_new', '--header', `X-Service-Signature: ${signatureHeader(body, ['whsec_new'], t)}`, file])
    expect(xs).toMatchObject({ code: 0, stderr: '' })
    expect(xs.stdout).toStartWith('Verified: contact.created evt_saved')
  },
  CLI_TIMEOUT * 2,
)
