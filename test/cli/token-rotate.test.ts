import { beforeAll, expect, test } from 'bun:test'
import { listAudit } from '../../server/src/domain/audit.ts'
import { call, getHarness, makeWorkspace, type Workspace } from '../harness.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf, type Run } from './run.ts'

/**
 * growth admin token rotate: a new token of the same mode, scopes and expiry, and the old one in
 * force for the overlap, as Stripe rolls a key. The CLI writes to the test server's own database;
 * both tokens are then tried against the API.
 */
let ws: Workspace
let growth: (args: string[]) => Promise<Run>

beforeAll(async () => {
  const h = await getHarness()
  ws = await makeWorkspace()
  growth = (args) => growthIn(h.dataDir)(args)
})

const create = async (args: string[] = []) => jsonOf(await growth(['admin', 'token', 'create', '--workspace', ws.id, ...args, '--json']), 'admin token create')
const status = async (token: string) => (await call('GET', '/api/v1/events?limit=1', { token })).status
const listed = async (id: string) => jsonOf(await growth(['admin', 'token', 'list', '--workspace', ws.id, '--json']), 'admin token list').tokens.find((t: { id: string }) => t.id === id)

test(
  'gives a new token of the same mode, scopes and expiry, shown once; both work for the overlap, the old one then ends at the time it said',
  async () => {
    const expiresAt = '2031-06-30T00:00:00.000Z'
    const old = await create(['--test', '--scopes', 'read:growth,read:events', '--expires-at', expiresAt])
    const before = Date.now()
    const rotated = jsonOf(await growth(['admin', 'token', 'rotate', old.id, '--overlap', '2h', '--json']), 'admin token rotate')
    expect(Object.keys(rotated).sort()).toEqual(['expiresAt', 'id', 'mode', 'oldEndsAt', 'replaces', 'scopes', 'token'])
    expect(rotated).toMatchObject({ mode: 'test', scopes: ['read:growth', 'read:events'], expiresAt, replaces: old.id })
    expect(rotated.id).toMatch(/^cred_/)
    expect(rotated.id).not.toBe(old.id)
    expect(rotated.token).toMatch(new RegExp(`^svc_test_${ws.id.slice(3)}_[0-9a-f]{48}$`))
    const ends = Date.parse(rotated.oldEndsAt)
    expect(ends).toBeGreaterThanOrEqual(before + 2 * 3_600_000 - 1_000)
    expect(ends).toBeLessThanOrEqual(Date.now() + 2 * 3_600_000 + 1_000)
    // Both in force now.
    expect(await status(old.token)).toBe(200)
    expect(await status(rotated.token)).toBe(200)
    // The list names the token that replaced it; the new one replaces nothing yet.
    expect(await listed(old.id)).toMatchObject({ state: 'active', expiresAt: rotated.oldEndsAt, replacedBy: rotated.id })
    expect(await listed(rotated.id)).toMatchObject({ state: 'active', mode: 'test', expiresAt, scopes: ['read:growth', 'read:events'], replacedBy: null })
    const table = (await growth(['admin', 'token', 'list', '--workspace', ws.id])).stdout.split('\n')
    expect(table.find((line) => line.startsWith(`${old.id} `))).toMatch(new RegExp(`^${old.id} +test +active, replaced by ${rotated.id} +read:growth,read:events `))
    expect(table.find((line) => line.startsWith(`${rotated.id} `))).toMatch(new RegExp(`^${rotated.id} +test +active +read:growth`))
    // Recorded, naming both and the overlap.
    const { sql } = await getHarness()
    const entry = (await listAudit(sql, ws.id, 10)).entries.find((e) => e.action === 'token.rotated')
    expect(entry).toMatchObject({ actor: { kind: 'operator' }, subject: old.id, detail: { credentialId: rotated.id, mode: 'test', overlapSeconds: 7200, oldEndsAt: rotated.oldEndsAt } })
  },
  CLI_TIMEOUT,
)

test(
  'with --overlap 0s the old token is refused from its next request; for people, it says what it did and that the token is not shown again',
  async () => {
    const old = await create()
    const r = await growth(['admin', 'token', 'rotate', old.id, '--overlap', '0s'])
    expect(r.code).toBe(0)
    const token = /Token:\s+(svc_live_\S+)/.exec(r.stdout)?.[1]
    expect(token).toBeDefined()
    expect(r.stdout).toMatch(new RegExp(`^Rotated live token ${old.id}: cred_\\S+ replaces it; ${old.id} keeps working until \\S+Z`))
    expect(r.stderr).toContain('this token will not be shown again')
    expect(await status(old.token)).toBe(401)
    expect(await status(token!)).toBe(200)
    expect(await listed(old.id)).toMatchObject({ state: 'expired', replacedBy: expect.stringMatching(/^cred_/) })
  },
  CLI_TIMEOUT,
)

test(
  'a token already being replaced is not rotated again (one new token a rotation, never an unseen second); nor one revoked or ended',
  async () => {
    const old = await create()
    const count = async () => jsonOf(await growth(['admin', 'token', 'list', '--workspace', ws.id, '--json']), 'admin token list').tokens.length
    const made = await count()
    const first = jsonOf(await growth(['admin', 'token', 'rotate', old.id, '--json']), 'admin token rotate')
    expect(Date.parse(first.oldEndsAt) - Date.now()).toBeGreaterThan(23 * 3_600_000) // the default overlap: 24h
    expect(await count()).toBe(made + 1)
    expectRefused(await growth(['admin', 'token', 'rotate', old.id]), new RegExp(`Token ${old.id} already ends at ${first.oldEndsAt}, within a week: it is being replaced, or ends anyway\\. Rotate the token that replaced it`))
    expect(await count()).toBe(made + 1)
    expect((await listed(old.id)).expiresAt).toBe(first.oldEndsAt)
    const revoked = await create()
    expect((await growth(['admin', 'token', 'revoke', revoked.id])).code).toBe(0)
    expectRefused(await growth(['admin', 'token', 'rotate', revoked.id]), new RegExp(`Token ${revoked.id} has already ended \\(revoked\\); rotate one that is in force`))
    expect(await count()).toBe(made + 2)
  },
  CLI_TIMEOUT,
)

test(
  'refused, changing nothing: an overlap past a week or not a duration, a token given in place of its id (named by its last four), an agent credential, an unknown id',
  async () => {
    const old = await create()
    expectRefused(await growth(['admin', 'token', 'rotate', old.id, '--overlap', '8d']), /--overlap is at most 7d: the old token works at most a week beside the new one \(got 8d\)/)
    expectRefused(await growth(['admin', 'token', 'rotate', old.id, '--overlap', 'soon']), /--overlap must be a duration such as 24h, 30m or 0s \(got soon\)/)
    const leaked = await growth(['admin', 'token', 'rotate', old.token])
    expectRefused(leaked, new RegExp(`is a token, not its id: rotate takes the credential id, here ${old.id}: growth admin token rotate ${old.id}`))
    expect(leaked.stderr).not.toContain(old.token)
    const agent = jsonOf(await growth(['admin', 'agent', 'create', '--workspace', ws.id, '--name', 'Rotator', '--allow', 'ads.adjust_budget', '--json']), 'admin agent create')
    expectRefused(await growth(['admin', 'token', 'rotate', agent.credentialId]), new RegExp(`${agent.credentialId} is an agent's credential: rotate it on the agent's console page`))
    expectRefused(await growth(['admin', 'token', 'rotate', 'cred_01m8mk8dhym5w8kc898fdh8mje']), /No credential cred_01m8mk8dhym5w8kc898fdh8mje/)
    // Nothing changed: the token is in force with no end, and no other token was made for it.
    expect(await listed(old.id)).toMatchObject({ state: 'active', expiresAt: null })
    expect(await status(old.token)).toBe(200)
  },
  CLI_TIMEOUT,
)
