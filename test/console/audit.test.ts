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
    expect(page.text).toMatch(/<strong>Maya Chen<\/strong> stopped the agents/)
    expect(page.text).toContain('The spring send went to the wrong list.')
    // Sign-ins are listed as the person's own: "Kenji Sato signed in", newest first.
    expect(page.text).toMatch(/<strong>Kenji Sato<\/strong> signed in<\/p>/)
    expect(page.text.indexOf('Kenji Sato</strong> signed in')).toBeLessThan(page.text.indexOf('Maya Chen</strong> stopped the agents'))
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
    const sentences = [...page.text.matchAll(/<p><strong>ops<\/strong> \(an operator, with the CLI\) (.*?)<\/p>/g)].map((m) => m[1]!)
    expect(sentences).toHaveLength(AUDIT_ACTIONS.length)
    for (const sentence of sentences) {
      // Words, then the name, then the id: never the action's own name (webhook.secret_rotated) as the sentence.
      expect(sentence).toMatch(/^[a-z][a-z -]+ <strong>Lin Park<\/strong> <code>per_named01<\/code>$/)
      expect(AUDIT_ACTIONS.some((a) => sentence.startsWith(a))).toBe(false)
    }
    // A time among the details is a <time>, shown in the reader's zone like every other.
    expect(page.text).toContain('<dd><time datetime="2026-12-01T10:00:00.000Z">2026-12-01 10:00 UTC</time></dd>')
  }, 60_000)

  test('without a session the audit list is the sign-in page', async () => {
    const page = await fetchConsole('/console/audit')
    expect(page.res.status).toBe(303)
    expect(page.res.headers.get('location')).toBe('/console/signin')
  })
})
