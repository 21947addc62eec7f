import { describe, expect, test } from 'bun:test'
import { AUDIT_ACTIONS, recordAudit } from '../../server/src/domain/audit.ts'
import { getHarness, makeWorkspace } from '../harness.ts'
import { fetchConsole, signInAs } from '../support/console-session.ts'

/**
 * /console/audit over HTTP, signed in: who did what, newest first, in words, as `growth admin
 * audit` lists it; every role reads it; paged by position without losing or repeating an entry;
 * a made-up position is a clear 400; another workspace's entries never show.
 */
describe('the console: the audit list', () => {
  test('a stop in the console shows with the person, their words and the reason; a viewer reads it too', async () => {
    const ws = await makeWorkspace()
    const maya = await signInAs(ws.id, 'owner', 'Maya Chen')
    const stopped = await fetchConsole('/console/agents', { cookie: maya.cookie, form: { csrf: maya.csrf, switch: 'stop', reason: 'The spring send went to the wrong list.' } })
    expect(stopped.res.status).toBe(303)
    const viewer = await signInAs(ws.id, 'viewer', 'Kenji Sato')
    const page = await fetchConsole('/console/audit', { cookie: viewer.cookie })
    expect(page.res.status).toBe(200)
    expect(page.text).toContain('<a href="/console/audit" aria-current="page">Audit</a>')
    expect(page.text).toMatch(new RegExp(`<a href="/console/audit\\?who=${maya.person.id}"><strong>Maya Chen</strong></a> stopped the agents`))
    expect(page.text).toContain('The spring send went to the wrong list.')
    // Sign-ins are listed as the person's own: "Kenji Sato signed in", newest first.
    expect(page.text).toMatch(/<strong>Kenji Sato<\/strong><\/a> signed in<\/p>/)
    expect(page.text.indexOf('Kenji Sato</strong></a> signed in')).toBeLessThan(page.text.indexOf('Maya Chen</strong></a> stopped the agents'))
    // The session's token is never on the page.
    expect(page.text).not.toContain(viewer.token)
    expect(page.text).not.toContain(maya.token)
  }, 60_000)

  test('paged by position: every entry once, newest first; a made-up position is a 400; another workspace sees none of it', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const start = Date.parse('2026-01-01T00:00:00Z')
    // 120 entries, some sharing a millisecond (the id orders those).
    for (let i = 0; i < 120; i++) {
      await recordAudit(sql, ws.id, { kind: 'operator', name: 'ops' }, 'token.revoked', `tok_paged${String(i).padStart(3, '0')}`, {}, new Date(start + Math.floor(i / 3) * 1000))
    }
    const me = await signInAs(ws.id, 'approver', 'Ana Lima')
    const seen: string[] = []
    let path: string | null = '/console/audit'
    for (let pages = 0; path && pages < 10; pages++) {
      const page = await fetchConsole(path, { cookie: me.cookie })
      expect(page.res.status).toBe(200)
      seen.push(...[...page.text.matchAll(/<code>(tok_paged\d{3})<\/code>/g)].map((m) => m[1]!))
      const older = /<a href="(\/console\/audit\?before=[^"]+)">Older entries<\/a>/.exec(page.text)?.[1]
      path = older ? older.replaceAll('&amp;', '&') : null
    }
    // Each once; newest first (entries of one millisecond in the order of their ids).
    expect(seen).toHaveLength(120)
    expect(new Set(seen).size).toBe(120)
    const second = (s: string) => Math.floor(Number(s.slice(-3)) / 3)
    for (let i = 1; i < seen.length; i++) expect(second(seen[i]!)).toBeLessThanOrEqual(second(seen[i - 1]!))

    const bad = await fetchConsole('/console/audit?before=yesterday', { cookie: me.cookie })
    expect(bad.res.status).toBe(400)
    expect(bad.text).toContain('before must be a position this console gave (got &quot;yesterday&quot;)')

    const stranger = await signInAs((await makeWorkspace()).id, 'owner', 'Lee Park')
    const theirs = await fetchConsole('/console/audit', { cookie: stranger.cookie })
    expect(theirs.text).not.toContain('tok_paged')
  }, 60_000)

  test('every action the list records is told in words, and a person it names by their name', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const ops = { kind: 'operator', name: 'ops' } as const
    for (const action of AUDIT_ACTIONS) await recordAudit(sql, ws.id, ops, action, 'per_named01', { name: 'Lin Park', expiresAt: '2026-12-01T10:00:00.000Z' })
    const me = await signInAs(ws.id, 'viewer', 'Ana Lima')
    const page = await fetchConsole('/console/audit', { cookie: me.cookie })
    expect(page.res.status).toBe(200)
    const sentences = [...page.text.matchAll(/<p><a href="\/console\/audit\?who=operator"><strong>ops<\/strong><\/a> \(an operator, with the CLI\) (.*?)<\/p>/g)].map((m) => m[1]!)
    expect(sentences).toHaveLength(AUDIT_ACTIONS.length)
    for (const sentence of sentences) {
      // Words, then the name, then the id: never the action's own name (webhook.secret_rotated) as the sentence.
      expect(sentence).toMatch(/^[a-z][a-z -]+ <strong>Lin Park<\/strong> <a href="\/console\/audit\?subject=per_named01"><code>per_named01<\/code><\/a>$/)
      expect(AUDIT_ACTIONS.some((a) => sentence.startsWith(a))).toBe(false)
    }
    // A time among the details is a <time>, shown in the reader's zone like every other.
    expect(page.text).toContain('<dd><time datetime="2026-12-01T10:00:00.000Z">2026-12-01 10:00 UTC</time></dd>')
  }, 60_000)

  test('filtered by what, by who and by what it is about, each with its words; the filter holds across pages; a filter it does not know is a 400 naming it', async () => {
    const ws = await makeWorkspace()
    const { sql } = await getHarness()
    const ops = { kind: 'operator', name: 'ops' } as const
    const maya = await signInAs(ws.id, 'owner', 'Maya Chen')
    const mayaActs = { kind: 'person', id: maya.person.id, name: 'Maya Chen' } as const
    // A millisecond apart each, after the sign-in: entries of one millisecond are ordered by their (random) ids.
    let at = Date.now() + 1000
    const next = () => new Date(at++)
    await recordAudit(sql, ws.id, ops, 'token.created', 'cred_filterA', {}, next())
    await recordAudit(sql, ws.id, mayaActs, 'token.revoked', 'cred_filterA', {}, next())
    await recordAudit(sql, ws.id, mayaActs, 'agents.stopped', ws.id, { reason: 'Checking spend' }, next())
    await recordAudit(sql, ws.id, ops, 'webhook.disabled', 'whe_filterB', {}, next())
    for (let i = 0; i < 55; i++) await recordAudit(sql, ws.id, ops, 'agent.created', `agt_filter${String(i).padStart(2, '0')}`, {}, next())
    const actions = async (path: string) => {
      const page = await fetchConsole(path, { cookie: maya.cookie })
      expect({ path, status: page.res.status }).toEqual({ path, status: 200 })
      return { page, actions: [...page.text.matchAll(/<code>([a-z_]+\.[a-z_]+)<\/code>/g)].map((m) => m[1]!) }
    }
    // The workspace's own tokens were issued first (as makeWorkspace issues them).
    const tokens = (await actions('/console/audit?kind=tokens')).actions
    expect(tokens.slice(0, 2)).toEqual(['token.revoked', 'token.created'])
    expect(new Set(tokens)).toEqual(new Set(['token.revoked', 'token.created']))
    expect((await actions('/console/audit?kind=stop-switch')).actions).toEqual(['agents.stopped'])
    expect((await actions(`/console/audit?who=${maya.person.id}`)).actions).toEqual(['agents.stopped', 'token.revoked', 'person.signed_in'])
    expect((await actions('/console/audit?who=operator&kind=webhooks')).actions).toEqual(['webhook.disabled'])
    expect((await actions('/console/audit?subject=cred_filterA')).actions).toEqual(['token.revoked', 'token.created'])
    // The form's empty choices are no filter; a filter that matches nothing says so.
    expect((await actions('/console/audit?kind=&who=')).actions.length).toBe(50)
    const none = await actions('/console/audit?kind=policy')
    expect(none.actions).toEqual([])
    expect(none.page.text).toContain('Nothing recorded matches this filter.')
    expect(none.page.text).toContain('<option value="policy" selected>Policy</option>')
    expect(none.page.text).toContain('<a href="/console/audit">Show everything</a>')
    // Paged under the filter: the older page's link keeps it, and every agent entry shows once.
    const first = await actions('/console/audit?kind=agents')
    expect(first.actions).toHaveLength(50)
    const older = /<a href="(\/console\/audit\?kind=agents&amp;before=[^"]+)">Older entries<\/a>/.exec(first.page.text)![1]!.replaceAll('&amp;', '&')
    const second = await actions(older)
    const ours = (text: string) => [...text.matchAll(/<code>(agt_filter\d\d)<\/code>/g)].map((m) => m[1]!)
    expect(new Set(second.actions)).toEqual(new Set(['agent.created']))
    const both = [...ours(first.page.text), ...ours(second.page.text)]
    expect(both).toHaveLength(55)
    expect(new Set(both).size).toBe(55)
    expect(second.page.text).toContain('<a href="/console/audit?kind=agents">Newest</a>')
    // Who and what it is about are links to their own lists.
    expect(first.page.text).toContain('<a href="/console/audit?kind=agents&amp;subject=agt_filter54"><code>agt_filter54</code></a>')

    for (const [query, words] of [
      ['kind=secrets', 'kind must be one of decisions, stop-switch, agents, policy, tokens, webhooks, people (got &quot;secrets&quot;)'],
      ['who=maya', 'who must be a person&#39;s id (per_...), operator or system (got &quot;maya&quot;)'],
      ['subject=two%20ids', 'subject must be one id, e.g. agt_... (got &quot;two ids&quot;)'],
    ] as const) {
      const bad = await fetchConsole(`/console/audit?${query}`, { cookie: maya.cookie })
      expect({ query, status: bad.res.status }).toEqual({ query, status: 400 })
      expect(bad.text).toContain(words)
    }
  }, 60_000)

  test('without a session the audit list is the sign-in page', async () => {
    const page = await fetchConsole('/console/audit')
    expect(page.res.status).toBe(303)
    expect(page.res.headers.get('location')).toBe('/console/signin?next=%2Fconsole%2Faudit')
  })
})
