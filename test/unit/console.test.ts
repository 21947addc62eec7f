import { describe, expect, test } from 'bun:test'
import { sameToken } from '../../server/src/console/csrf.ts'
import { escapeHtml, html } from '../../server/src/console/html.ts'
import { factList, possessive, timeLeft } from '../../server/src/console/pages/describe.ts'
import { parsePosition, positionParam } from '../../server/src/console/pages/inbox.ts'
import { endSessionCookie, sessionCookie } from '../../server/src/console/responses.ts'

describe('the console, its pure parts', () => {
  test('a workspace\'s possessive as English writes it', () => {
    expect(['Acme Outdoor', 'Northwind Coffee Roasters', 'Lens', 'ACME SUPPLIES'].map(possessive)).toEqual(["Acme Outdoor's", "Northwind Coffee Roasters'", "Lens'", "ACME SUPPLIES'"])
  })

  test('html escapes every value; only html made by the tag passes as it is', () => {
    const name = `<img src=x onerror="alert('1')">&\``
    expect(html`<p title="${name}">${name}</p>`.text).toBe(`<p title="${escapeHtml(name)}">${escapeHtml(name)}</p>`)
    expect(escapeHtml(name)).toBe('&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;&#96;')
    expect(html`<ul>${['<a>', html`<li>b</li>`]}</ul>`.text).toBe('<ul>&lt;a&gt;<li>b</li></ul>')
    expect(html`${null}${undefined}${false}${0}`.text).toBe('0')
  })

  test('CSRF tokens compare equal only when the same, never when missing', () => {
    expect(sameToken('abc', 'abc')).toBe(true)
    expect(sameToken('abc', 'abd')).toBe(false)
    expect(sameToken('abc', 'abcd')).toBe(false)
    expect(sameToken('', '')).toBe(false)
    expect(sameToken(null, 'abc')).toBe(false)
    expect(sameToken('abc', undefined)).toBe(false)
  })

  test('the session cookie: HttpOnly, SameSite=Lax, Path=/console, Secure only over https', () => {
    expect(sessionCookie('t0k', false)).toBe('growth_session=t0k; Path=/console; HttpOnly; SameSite=Lax; Max-Age=604800')
    expect(sessionCookie('t0k', true)).toBe('growth_session=t0k; Path=/console; HttpOnly; SameSite=Lax; Max-Age=604800; Secure')
    expect(endSessionCookie(true)).toBe('growth_session=; Path=/console; HttpOnly; SameSite=Lax; Max-Age=0; Secure')
  })

  test('an inbox position round-trips; anything else is not one', () => {
    const p = { t: '2026-11-26T15:25:02.123Z', id: 'apr_01JD0000000000000000000000' }
    expect(parsePosition(positionParam(p))).toEqual(p)
    for (const bad of ['', 'x', '2026-11-26T15:25:02Z', '2026-13-45T99:99:99Z~apr_x', "2026-11-26T15:25:02Z~apr_x'--", '2026-11-26T15:25:02Z~']) {
      expect(parsePosition(bad)).toBeNull()
    }
  })

  test('time left in words', () => {
    const now = new Date('2026-01-01T00:00:00Z')
    expect(timeLeft(null, now)).toBeNull()
    expect(timeLeft('2025-12-31T23:59:59Z', now)).toBe('expired')
    expect(timeLeft('2026-01-01T00:09:30Z', now)).toBe('expires in 10 min')
    expect(timeLeft('2026-01-01T03:12:00Z', now)).toBe('expires in 3 h 12 min')
    expect(timeLeft('2026-01-05T00:00:00Z', now)).toBe('expires in 4 days')
  })

  test('figures for people: an amount in minor units as money, a named thing by its name, nothing for a value not set', () => {
    const out = factList({ amountMinor: 14160, currency: 'USD', amountPercent: 18, sendAt: null, campaign: { id: 'cmp_1', name: 'Spring' } }, 'Facts')!.text
    expect(out).toContain('<dt>amount</dt><dd>141.60 USD</dd>')
    expect(out).toContain('<dt>amount percent</dt><dd>18</dd>')
    expect(out).toContain('<dt>campaign</dt><dd>Spring (cmp_1)</dd>')
    expect(out).not.toContain('amount minor')
    expect(out).not.toContain('send at')
    expect(factList({ sendAt: null }, 'Facts')).toBeNull()
  })
})
