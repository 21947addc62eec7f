import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../server/src/config.ts'
import { clientAddress, parseTrustedProxies, type TrustedProxies } from '../../server/src/core/client-address.ts'

const proxies = (text: string) => parseTrustedProxies(text) as TrustedProxies

describe('the client address behind trusted proxies', () => {
  test('no trusted proxies: the peer, whatever X-Forwarded-For says', () => {
    expect(clientAddress('192.0.2.10', '203.0.113.9', [])).toBe('192.0.2.10')
    expect(clientAddress(undefined, '203.0.113.9', [])).toBe('unknown')
  })

  test('a peer that is no trusted proxy is the client, its header not believed', () => {
    expect(clientAddress('198.51.100.7', '203.0.113.9', proxies('10.0.0.0/8'))).toBe('198.51.100.7')
  })

  test('behind trusted proxies: right to left, the first address that is not one; a client\'s own entries further left are never believed', () => {
    const trusted = proxies('10.0.0.0/8, 127.0.0.1')
    expect(clientAddress('127.0.0.1', '203.0.113.9', trusted)).toBe('203.0.113.9')
    // A client that sends its own X-Forwarded-For: the proxy appends what it saw, which is what counts.
    expect(clientAddress('127.0.0.1', '198.51.100.1, 203.0.113.9', trusted)).toBe('203.0.113.9')
    // Two proxies in a row: both skipped.
    expect(clientAddress('127.0.0.1', '203.0.113.9, 10.1.2.3', trusted)).toBe('203.0.113.9')
    // Every hop trusted: the left-most.
    expect(clientAddress('127.0.0.1', '10.9.9.9, 10.1.2.3', trusted)).toBe('10.9.9.9')
    // No header from a trusted proxy: the proxy itself.
    expect(clientAddress('127.0.0.1', null, trusted)).toBe('127.0.0.1')
    // An entry that is no address stops the reading at the last address believed.
    expect(clientAddress('127.0.0.1', '203.0.113.9, not-an-address', trusted)).toBe('127.0.0.1')
    expect(clientAddress('127.0.0.1', 'not-an-address, 10.1.2.3', trusted)).toBe('10.1.2.3')
  })

  test('IPv6, bracketed entries and IPv4-mapped peers', () => {
    const trusted = proxies('::1, 10.0.0.0/8')
    expect(clientAddress('::1', '[2001:db8::5]', trusted)).toBe('2001:db8::5')
    expect(clientAddress('::ffff:10.0.0.2', '203.0.113.9', trusted)).toBe('203.0.113.9')
  })

  test('the setting: addresses and CIDR ranges; anything else is named', () => {
    expect(parseTrustedProxies('')).toEqual([])
    expect((parseTrustedProxies('10.0.0.0/8, ::1') as TrustedProxies).map(([a, bits]) => `${a.toString()}/${bits}`)).toEqual(['10.0.0.0/8', '::1/128'])
    expect(parseTrustedProxies('10.0.0.0/8, proxy.internal')).toEqual({ bad: 'proxy.internal' })
    expect(parseTrustedProxies('10.0.0.0/33')).toEqual({ bad: '10.0.0.0/33' })
  })

  test('TRUSTED_PROXIES that names no address stops the start, naming the entry', () => {
    expect(loadConfig({ PORT: '0', TRUSTED_PROXIES: '10.0.0.0/8' }).trustedProxies).toHaveLength(1)
    expect(loadConfig({ PORT: '0' }).trustedProxies).toEqual([])
    expect(() => loadConfig({ PORT: '0', TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' })).toThrow(ConfigError)
    expect(() => loadConfig({ PORT: '0', TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' })).toThrow(
      'TRUSTED_PROXIES must be a comma-separated list of the reverse proxies\' addresses or CIDR ranges, such as 10.0.0.0/8,192.0.2.7 ("proxy.internal" is neither)',
    )
  })
})
