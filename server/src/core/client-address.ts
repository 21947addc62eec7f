import ipaddr from 'ipaddr.js'

/**
 * The address a request came from, for the per-address limits (calls without a credential, failed
 * authentications, sign-in links) and the audit list's sign-ins. Without trusted proxies it is the
 * connection's peer. Behind a reverse proxy the peer is the proxy, so every person would share one
 * address and one allowance: the operator names the proxies (TRUSTED_PROXIES) and the address is
 * then read from X-Forwarded-For, right to left, skipping the trusted hops: the first address not
 * a trusted proxy is the client (what a client writes further left is never believed). Express's
 * "trust proxy" reads it the same way.
 */

/** The ranges of the reverse proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES), parsed. */
export type TrustedProxies = [ipaddr.IPv4 | ipaddr.IPv6, number][]

/** `10.0.0.0/8, 192.0.2.7` -> the ranges (a bare address is itself alone), or the entry that is neither. */
export function parseTrustedProxies(text: string): TrustedProxies | { bad: string } {
  const ranges: TrustedProxies = []
  for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    try {
      if (entry.includes('/')) ranges.push(ipaddr.parseCIDR(entry))
      else {
        const address = ipaddr.parse(entry)
        ranges.push([address, address.kind() === 'ipv4' ? 32 : 128])
      }
    } catch {
      return { bad: entry }
    }
  }
  return ranges
}

/** An address as one spelling (an IPv4-mapped IPv6 address as its IPv4 address), or null when it is none. */
function parsed(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = text.trim().replace(/^\[(.*)\]$/, '$1')
  return ipaddr.isValid(bare) ? ipaddr.process(bare) : null
}

function trusted(address: ipaddr.IPv4 | ipaddr.IPv6, proxies: TrustedProxies): boolean {
  return proxies.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits))
}

/**
 * The client's address: the peer's, unless the peer is a trusted proxy; then the right-most address
 * of X-Forwarded-For that is not one (all trusted: the left-most). A forwarded entry that is no
 * address stops the reading there, at the last address believed.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null, proxies: TrustedProxies): string {
  if (!peer) return 'unknown'
  if (proxies.length === 0) return peer
  const first = parsed(peer)
  if (!first || !trusted(first, proxies)) return peer
  let client = first
  const hops = (forwardedFor ?? '').split(',').map((s) => s.trim()).filter(Boolean).reverse()
  for (const hop of hops) {
    const address = parsed(hop)
    if (!address) break
    client = address
    if (!trusted(address, proxies)) break
  }
  return client.toString()
}
