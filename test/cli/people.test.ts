import { beforeAll, describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LINK_REFUSALS, peekLink, redeemLink } from '../../server/src/domain/sign-in.ts'
import { endAllSessions, endSession, sessionOf } from '../../server/src/domain/sessions.ts'
import { SIGN_IN_LIMITS } from '../../server/src/domain/sign-in-limits.ts'
import { setAgentsStopped } from '../../server/src/domain/workspaces.ts'
import type { Sql } from '../../server/src/store/driver/db.ts'
import { agentIn, authorize, decisionOf } from '../agent-helpers.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { CLI_TIMEOUT, expectRefused, growthIn, jsonOf, refusalJson, type Run } from './run.ts'
import { withinOneWindow } from '../support/clock-window.ts'

/**
 * People, sign-in links, sessions and the audit list (CONTRACT: People and the console), as an
 * operator uses them: `growth admin person add|list|remove|link` and `growth admin audit` run as
 * processes on the test server's database; a link is redeemed and a session read through the
 * domain functions the console calls.
 */
const T = CLI_TIMEOUT
const LOGIN = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim()
let growth: (args: string[], env?: Record<string, string>) => Promise<Run>
let sql: Sql

beforeAll(async () => {
  const h = await getHarness()
  sql = h.sql
  growth = growthIn(h.dataDir)
})

let n = 0
const add = async (ws: string, role = 'approver', email = `person${++n}@example.com`) =>
  jsonOf(await growth(['admin', 'person', 'add', '--workspace', ws, '--email', email, '--name', `Person ${n}`, '--role', role, '--json']), 'person add')
const link = async (id: string, env: Record<string, string> = {}) => jsonOf(await growth(['admin', 'person', 'link', id, '--json'], env), 'person link')
const tokenOf = (url: string) => url.slice(url.lastIndexOf('/') + 1)
const ruleOf = (p: Promise<unknown>) => p.then(() => 'redeemed', (err) => (err as { rule?: string }).rule ?? String(err))

describe('growth admin person', () => {
  test('add, list and link have the contract shapes; the email is stored lower-cased', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'owner', 'Maya.Chen@Example.COM')
    expect(p).toEqual({ id: expect.stringMatching(/^per_/), email: 'maya.chen@example.com', name: expect.any(String), role: 'owner' })
    const list = jsonOf(await growth(['admin', 'person', 'list', '--workspace', ws.id, '--json']), 'person list')
    expect(list).toEqual({ people: [p] })
    const before = Date.now()
    const l = await link(p.id, { CONSOLE_URL: 'https://growth.example.com/console/' })
    expect(Object.keys(l).sort()).toEqual(['expiresAt', 'url'])
    expect(l.url).toMatch(/^https:\/\/growth\.example\.com\/console\/signin\/gsl_[0-9a-z]{26}_[A-Za-z0-9_-]{43}$/)
    const valid = Date.parse(l.expiresAt) - before
    expect(valid).toBeGreaterThan(14 * 60_000)
    expect(valid).toBeLessThanOrEqual(15 * 60_000 + 60_000)
    // Without CONSOLE_URL: the server's HOST and PORT.
    expect((await link(p.id, { HOST: '127.0.0.1', PORT: '4321' })).url).toStartWith('http://127.0.0.1:4321/console/signin/gsl_')
    // Without CONSOLE_URL, a person reading the link is told where its address came from; with it, not.
    const plain = await growth(['admin', 'person', 'link', p.id])
    expect(plain.stdout).toContain('  http://127.0.0.1:4000/console/signin/gsl_')
    expect(plain.stderr).toContain('Its address is http://127.0.0.1:4000/console, from the defaults of HOST and PORT, as CONSOLE_URL is not set here: if people reach the console elsewhere, run this again with CONSOLE_URL set as the server has it.')
    expect((await growth(['admin', 'person', 'link', p.id], { PORT: '4321' })).stderr).toContain('Its address is http://127.0.0.1:4321/console, from HOST and PORT, as CONSOLE_URL')
    expect((await growth(['admin', 'person', 'link', p.id], { CONSOLE_URL: 'https://growth.example.com/console' })).stderr).not.toContain('Its address')
    // For people: a table, and the link on a line of its own.
    const human = await growth(['admin', 'person', 'list', '--workspace', ws.id])
    expect(human.stdout).toMatch(/^ID\s+ROLE\s+EMAIL\s+NAME\n/)
    expect(human.stdout).toContain(`${p.id}  owner  maya.chen@example.com`)
  }, T)

  test('a second person of the same address is refused naming it, in any case; other workspaces may have it', async () => {
    const ws = await makeWorkspace()
    const kenji = await add(ws.id, 'viewer', 'kenji@example.com')
    // Naming who has it, so that the operator changes their role instead.
    expectRefused(
      await growth(['admin', 'person', 'add', '--workspace', ws.id, '--email', 'KENJI@example.com', '--name', 'K', '--role', 'owner']),
      new RegExp(`kenji@example\\.com is already a person of workspace ${ws.id} \\(${kenji.name}, viewer, ${kenji.id}\\); an address names one person: change their role instead\\.`),
    )
    const other = await makeWorkspace()
    expect((await add(other.id, 'viewer', 'kenji@example.com')).email).toBe('kenji@example.com')
  }, T)

  test('bad email, bad role, a blank name and an unknown workspace are refused naming what', async () => {
    const ws = await makeWorkspace()
    const base = ['admin', 'person', 'add', '--workspace', ws.id, '--name', 'Sofia', '--json']
    expect(refusalJson(await growth([...base, '--email', 'sofia-at-example.com', '--role', 'owner'])).message).toMatch(/email must be an address .*sofia-at-example\.com/)
    expect(refusalJson(await growth([...base, '--email', 'sofia@example.com', '--role', 'admin'])).message).toMatch(/role must be one of owner, approver, viewer \(got admin\)/)
    expect(refusalJson(await growth(['admin', 'person', 'add', '--workspace', ws.id, '--name', '  ', '--email', 's@example.com', '--role', 'owner', '--json'])).message).toMatch(/needs a name/)
    const unknown = refusalJson(await growth(['admin', 'person', 'add', '--workspace', 'ws_nothing', '--email', 's@example.com', '--name', 'S', '--role', 'owner', '--json']))
    // Named with the database it was looked for in: the usual cause is another database.
    expect(unknown.code).toBe('not_found')
    expect(unknown.message).toMatch(/^No workspace ws_nothing in the (PostgreSQL database at \S+|embedded database in \S+( \(opened by process \d+\))?)\. Check the id \(growth admin workspace list lists them\), and that DATABASE_URL \(or DATA_DIR\) names the server's database\.$/)
    expect(refusalJson(await growth(['admin', 'person', 'list', '--workspace', 'ws_nothing', '--json'])).code).toBe('not_found')
    expect(refusalJson(await growth(['admin', 'person', 'link', 'per_nothing', '--json'])).code).toBe('not_found')
    expect(refusalJson(await growth(['admin', 'person', 'link', 'apr_x', '--json'])).message).toMatch(/starts with per_/)
  }, T)

  test('a link signs in once; its session knows the person, the workspace and a CSRF secret', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'approver')
    const token = tokenOf((await link(p.id)).url)
    const signed = await redeemLink(sql, token)
    expect(signed.person).toEqual(p)
    const s = await sessionOf(sql, signed.token)
    expect(s).toMatchObject({ person: p, workspace: { id: ws.id }, csrf: signed.csrf })
    expect(s!.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Stored only as hashes, and the CSRF secret sealed.
    const [stored] = await sql`SELECT token_hash, csrf_secret FROM console_sessions WHERE workspace_id = ${ws.id} AND person_id = ${p.id}`
    expect(stored!.token_hash).not.toContain(signed.token)
    expect(stored!.csrf_secret).toStartWith('enc:')
    expect(await ruleOf(redeemLink(sql, token))).toBe('link_used')
    // Unknown tokens, of the right shape or not, and a session token used as a link.
    expect(await ruleOf(redeemLink(sql, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')))).toBe('link_unknown')
    expect(await ruleOf(redeemLink(sql, 'nonsense'))).toBe('link_unknown')
    expect(await ruleOf(redeemLink(sql, signed.token))).toBe('link_unknown')
    // Signing out ends the session.
    expect(await endSession(sql, signed.token)).toBe(true)
    expect(await sessionOf(sql, signed.token)).toBeNull()
    expect(await endSession(sql, signed.token)).toBe(false)
    // Signing out everywhere ends every open session of the person, and only theirs.
    const [x, y] = [await redeemLink(sql, tokenOf((await link(p.id)).url)), await redeemLink(sql, tokenOf((await link(p.id)).url))]
    const someoneElse = await redeemLink(sql, tokenOf((await link((await add(ws.id, 'viewer')).id)).url))
    expect(await endAllSessions(sql, { workspaceId: ws.id, id: p.id }, { by: { kind: 'person', id: p.id, name: p.name } })).toBe(2)
    expect([await sessionOf(sql, x.token), await sessionOf(sql, y.token)]).toEqual([null, null])
    expect(await sessionOf(sql, someoneElse.token)).not.toBeNull()
  }, T)

  test('a link expires after 15 minutes; a session after 12 idle hours or 7 days', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'viewer')
    const expiring = tokenOf((await link(p.id)).url)
    expect(await ruleOf(redeemLink(sql, expiring, { at: new Date(Date.now() + 15 * 60_000 + 1000) }))).toBe('link_expired')
    // Set in the database, as another process would find it.
    const fresh = tokenOf((await link(p.id)).url)
    await sql`UPDATE sign_in_links SET expires_at = now() - interval '1 second' WHERE workspace_id = ${ws.id} AND used_at IS NULL`
    expect(await ruleOf(redeemLink(sql, fresh))).toBe('link_expired')

    const signed = await redeemLink(sql, tokenOf((await link(p.id)).url))
    const now = Date.now()
    expect(await sessionOf(sql, signed.token, new Date(now + 11 * 3600_000))).not.toBeNull()
    // Seen at +11 h (touched): idle counts from then.
    expect(await sessionOf(sql, signed.token, new Date(now + 22 * 3600_000))).not.toBeNull()
    expect(await sessionOf(sql, signed.token, new Date(now + 34 * 3600_000 + 60_000))).toBeNull()
    // A second past the 7 days (at exactly 7 days, the database's microseconds against this clock's
    // milliseconds decided it: once in a CI run it read as not yet expired).
    await sql`UPDATE console_sessions SET created_at = now() - interval '7 days 1 second', last_seen_at = now() WHERE workspace_id = ${ws.id}`
    expect(await sessionOf(sql, signed.token)).toBeNull()
  }, T)

  test('remove ends the person\'s sessions at once and their links stop working', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'approver')
    const a = await redeemLink(sql, tokenOf((await link(p.id)).url))
    const b = await redeemLink(sql, tokenOf((await link(p.id)).url))
    const unused = tokenOf((await link(p.id)).url)
    expect(await sessionOf(sql, a.token)).not.toBeNull()
    const r = await growth(['admin', 'person', 'remove', p.id])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('ended 2 sessions')
    expect(await sessionOf(sql, a.token)).toBeNull()
    expect(await sessionOf(sql, b.token)).toBeNull()
    expect(await ruleOf(redeemLink(sql, unused))).toBe('person_removed')
    // Every refusal of a link has a code of its own, each seen in these tests, with words for the console.
    expect(Object.keys(LINK_REFUSALS).sort()).toEqual(['link_expired', 'link_unknown', 'link_used', 'person_removed'])
    expect(jsonOf(await growth(['admin', 'person', 'list', '--workspace', ws.id, '--json']), 'person list')).toEqual({ people: [] })
    expectRefused(await growth(['admin', 'person', 'remove', p.id]), /was removed/)
    expectRefused(await growth(['admin', 'person', 'link', p.id]), /was removed/)
    // The address may be added again: a new person.
    expect((await add(ws.id, 'viewer', p.email)).id).not.toBe(p.id)
    // A workspace keeps an owner: its only one is not removed, one of two is.
    const first = await add(ws.id, 'owner')
    expectRefused(await growth(['admin', 'person', 'remove', first.id]), /only owner of this workspace/)
    const second = await add(ws.id, 'owner')
    expect((await growth(['admin', 'person', 'remove', first.id])).code).toBe(0)
    expectRefused(await growth(['admin', 'person', 'remove', second.id]), /a workspace keeps at least one owner/)
  }, T)

  test('failed redemptions are limited per address: past the limit a link that fails is refused as limited there, not elsewhere; a good link works there still', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'viewer')
    const address = `203.0.113.${(Date.now() % 200) + 1}-${n}`
    // Failed links are counted an hour of the clock: all of this test's in one hour.
    await withinOneWindow()
    for (let i = 0; i < SIGN_IN_LIMITS.failedRedeemsPerAddress; i++) expect(await ruleOf(redeemLink(sql, 'gsl_nothing', { address }))).toBe('link_unknown')
    expect(await ruleOf(redeemLink(sql, 'gsl_nothing', { address }))).toBe('sign_in_rate_limited')
    expect(await ruleOf(redeemLink(sql, 'gsl_nothing', { address: `${address}-other` }))).toBe('link_unknown')
    // Others' failures behind the same address never lock a person out.
    const good = tokenOf((await link(p.id)).url)
    expect(await ruleOf(redeemLink(sql, good, { address }))).toBe('redeemed')
  }, T)

  test('looking at a link (its page opened) uses nothing, refuses as redeeming does, and its refusals count alike', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'viewer')
    const address = `198.51.100.${(Date.now() % 200) + 1}-${n}`
    const good = tokenOf((await link(p.id)).url)
    // One moment for every attempt from the address, so all fall in one hour's window whenever the test runs.
    const at = new Date()
    for (let i = 0; i < 3; i++) expect(await ruleOf(peekLink(sql, good, { address, at }))).toBe('redeemed')
    // Looked at 16 minutes on: expired (from an address of its own, whose count is not this one's).
    expect(await ruleOf(peekLink(sql, good, { address: `${address}-later`, at: new Date(at.getTime() + 16 * 60_000) }))).toBe('link_expired')
    for (let i = 1; i < SIGN_IN_LIMITS.failedRedeemsPerAddress; i++) expect(await ruleOf(peekLink(sql, 'gsl_nothing', { address, at }))).toBe('link_unknown')
    expect(await ruleOf(redeemLink(sql, 'gsl_nothing', { address, at }))).toBe('link_unknown')
    // Twenty refusals from the address, looks and a redemption together: a link that fails there is
    // refused as limited, looked at or redeemed; the good link is looked at and redeemed all the same.
    expect(await ruleOf(peekLink(sql, 'gsl_nothing', { address, at }))).toBe('sign_in_rate_limited')
    expect(await ruleOf(peekLink(sql, good, { address, at }))).toBe('redeemed')
    expect(await ruleOf(redeemLink(sql, good, { address, at }))).toBe('redeemed')
    expect(await ruleOf(peekLink(sql, good, { address, at }))).toBe('sign_in_rate_limited')
    expect(await ruleOf(peekLink(sql, good, { address: `${address}-other`, at }))).toBe('link_used')
  }, T)
})

describe('growth admin audit', () => {
  const files = mkdtempSync(join(tmpdir(), 'growth-people-'))

  test('lists decisions, stops, policy, people and sign-ins newest first, with their actors', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'owner')
    const signed = await redeemLink(sql, tokenOf((await link(p.id)).url))
    await endSession(sql, signed.token)
    // An agent's request held for a person, rejected from the CLI.
    const agent = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Lifecycle Writer' })
    const a = await authorize(agent.credential, { tool: 'email', action: 'send_campaign', summary: 'Send to 40000', facts: { recipients: 40_000 } })
    expect(decisionOf(a)).toBe('requires_approval')
    const approvalId = a.body.data.approvalId as string
    expect((await growth(['admin', 'approval', 'reject', approvalId, '--reason', 'Too many recipients'])).code).toBe(0)
    expect((await growth(['admin', 'agents', 'stop', '--workspace', ws.id, '--reason', 'Checking spend'])).code).toBe(0)
    expect((await growth(['admin', 'agents', 'resume', '--workspace', ws.id])).code).toBe(0)
    // A policy applied from the CLI: the exported policy with a rule added.
    const exported = (await growth(['admin', 'policy', 'export', '--workspace', ws.id])).stdout
    const path = join(files, `${ws.id}.yaml`)
    writeFileSync(path, exported.replace(/^rules: \[\]\n?$/m, 'rules:\n  - effect: require_approval\n    match: [ { tool: ads, action: pause_campaign } ]\n'))
    const plan = jsonOf(await growth(['admin', 'policy', 'plan', '--workspace', ws.id, path, '--json']), 'policy plan')
    expect((await growth(['admin', 'policy', 'apply', '--workspace', ws.id, path, '--plan', plan.planId, '--json'])).code).toBe(0)

    const audit = jsonOf(await growth(['admin', 'audit', '--workspace', ws.id, '--json']), 'audit')
    // CONTRACT: `{ entries: [...] }`, nothing else (the console's paging position stays in the console).
    expect(Object.keys(audit)).toEqual(['entries'])
    const { entries } = audit
    for (const e of entries) expect(Object.keys(e).sort()).toEqual(['action', 'actor', 'at', 'detail', 'subject'])
    const ats = entries.map((e: { at: string }) => Date.parse(e.at))
    expect([...ats].sort((x, y) => y - x)).toEqual(ats)
    const operator = { kind: 'operator', name: LOGIN }
    const person = { kind: 'person', id: p.id, name: p.name }
    const find = (action: string) => entries.find((e: { action: string }) => e.action === action)
    expect(find('policy.applied')).toMatchObject({ actor: operator, subject: expect.stringMatching(/^pch_/), detail: { rulesVersion: expect.any(Number) } })
    expect(find('agents.resumed')).toMatchObject({ actor: operator, subject: ws.id })
    expect(find('agents.stopped')).toMatchObject({ actor: operator, subject: ws.id, detail: { reason: 'Checking spend' } })
    expect(find('approval.rejected')).toMatchObject({ actor: operator, subject: approvalId, detail: { kind: 'agent_request', reason: 'Too many recipients' } })
    expect(find('person.signed_out')).toMatchObject({ actor: person, subject: p.id })
    expect(find('person.signed_in')).toMatchObject({ actor: person, subject: p.id, detail: { via: 'link' } })
    expect(find('person.link_created')).toMatchObject({ actor: operator, subject: p.id })
    expect(find('person.added')).toMatchObject({ actor: operator, subject: p.id, detail: { email: p.email, role: 'owner' } })
    // The order they happened in, newest first.
    const order = ['policy.applied', 'agents.resumed', 'agents.stopped', 'approval.rejected', 'person.signed_out', 'person.signed_in', 'person.link_created', 'person.added']
    expect(entries.map((e: { action: string }) => e.action).filter((x: string) => order.includes(x))).toEqual(order)

    // --limit, and one line per entry for people.
    expect(jsonOf(await growth(['admin', 'audit', '--workspace', ws.id, '--limit', '2', '--json']), 'audit').entries.map((e: { action: string }) => e.action)).toEqual(['policy.applied', 'agents.resumed'])
    const human = await growth(['admin', 'audit', '--workspace', ws.id, '--limit', '3'])
    expect(human.stdout.trimEnd().split('\n')).toHaveLength(3)
    expect(human.stdout).toContain(`${LOGIN} (operator)  policy.applied pch_`)
    expect(refusalJson(await growth(['admin', 'audit', '--workspace', ws.id, '--limit', '0', '--json'])).message).toMatch(/--limit must be a whole number from 1 to 1000/)
    expect(refusalJson(await growth(['admin', 'audit', '--workspace', ws.id, '--limit', '1001', '--json'])).message).toMatch(/limit must be a whole number from 1 to 1000/)
    expect(refusalJson(await growth(['admin', 'audit', '--workspace', 'ws_nothing', '--json'])).code).toBe('not_found')
    // Filtered: by kind, by who, by what it is about; a filter it does not know is refused naming it.
    const actionsOf = async (...filter: string[]) => jsonOf(await growth(['admin', 'audit', '--workspace', ws.id, ...filter, '--json']), 'audit').entries.map((e: { action: string }) => e.action)
    expect(await actionsOf('--kind', 'stop-switch')).toEqual(['agents.resumed', 'agents.stopped'])
    expect(await actionsOf('--who', p.id)).toEqual(['person.signed_out', 'person.signed_in'])
    expect((await actionsOf('--who', 'operator', '--subject', p.id))).toEqual(['person.link_created', 'person.added'])
    const unmatched = await growth(['admin', 'audit', '--workspace', ws.id, '--kind', 'tokens', '--who', p.id])
    expect(unmatched.stdout).toContain(`Nothing recorded in workspace ${ws.id} matches this filter.`)
    expect(refusalJson(await growth(['admin', 'audit', '--workspace', ws.id, '--kind', 'secrets', '--json'])).message).toContain('kind must be one of decisions, stop-switch, agents, policy, tokens, webhooks, people (got "secrets")')
    // Another workspace's list holds none of it.
    const other = await makeWorkspace()
    expect(jsonOf(await growth(['admin', 'audit', '--workspace', other.id, '--json']), 'audit').entries.filter((e: { subject: string }) => e.subject === p.id)).toEqual([])
    // A reason written over several lines stays on its entry's line; a detail without a value is left out.
    const second = await agentIn(ws.id, { allow: 'email.send_campaign', name: 'Second Writer' })
    const asked = await authorize(second.credential, { tool: 'email', action: 'send_campaign', summary: 'Send to 50000', facts: { recipients: 50_000 } })
    expect((await growth(['admin', 'approval', 'approve', asked.body.data.approvalId])).code).toBe(0)
    const forged = `Checking spend\n2026-01-01T00:00:00.000Z  ${LOGIN} (operator)  agents.resumed ${ws.id}`
    expect((await growth(['admin', 'agents', 'stop', '--workspace', ws.id, '--reason', forged])).code).toBe(0)
    const lines = (await growth(['admin', 'audit', '--workspace', ws.id, '--limit', '2'])).stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toEndWith(`agents.stopped ${ws.id}  reason=Checking spend\\u000a2026-01-01T00:00:00.000Z  ${LOGIN} (operator)  agents.resumed ${ws.id}`)
    expect(lines[1]).toContain(`approval.approved ${asked.body.data.approvalId}  kind=agent_request`)
    expect(lines[1]).not.toContain('null')
  }, 120_000)
})

describe('growth admin agents stop when a person stopped them', () => {
  test('names the standing stop\'s person as the audit list does: --json the same actor shape as a stop just made, the text by name and id', async () => {
    const ws = await makeWorkspace()
    const p = await add(ws.id, 'owner')
    // The console's Stop, as the console calls it.
    await setAgentsStopped(sql, { workspaceId: ws.id, stopped: true, reason: 'Spend spike', actor: { kind: 'person', id: p.id, name: p.name } })
    const again = jsonOf(await growth(['admin', 'agents', 'stop', '--workspace', ws.id, '--reason', 'Also', '--json']), 'agents stop')
    expect(again).toMatchObject({ changed: false, reason: 'Spend spike', actor: { kind: 'person', id: p.id, name: p.name } })
    const told = await growth(['admin', 'agents', 'stop', '--workspace', ws.id, '--reason', 'Also'])
    expect(told.stdout).toContain(`  By:     ${p.name} (${p.id})\n`)
    // The audit list's actor of that stop is the same object.
    const audit = jsonOf(await growth(['admin', 'audit', '--workspace', ws.id, '--kind', 'stop-switch', '--json']), 'audit')
    expect(audit.entries.find((e: { action: string }) => e.action === 'agents.stopped')).toMatchObject({ actor: again.actor })
    // Removed from the workspace since, they are still named: the record is of who did it.
    await add(ws.id, 'owner')
    expect((await growth(['admin', 'person', 'remove', p.id])).code).toBe(0)
    const gone = jsonOf(await growth(['admin', 'agents', 'stop', '--workspace', ws.id, '--reason', 'Also', '--json']), 'agents stop')
    expect(gone.actor).toEqual({ kind: 'person', id: p.id, name: p.name })
  }, T)
})
