import { lookup } from 'node:dns/promises'
import ipaddr from 'ipaddr.js'

/**
 * The private-address guard (spec: no webhook is ever sent to a private or internal address;
 * CONTRACT: Events and webhooks). An endpoint's URL is checked when it is saved and again before
 * every send: it must be https (http only to a host the operator exempted), carry no user name or
 * password, and every address its host resolves to must be on the public unicast internet. The
 * sender then connects to the address that passed, with no second lookup that DNS could change.
 *
 * The URL parser (WHATWG) writes every other spelling of an IPv4 address (decimal, octal, hex,
 * short forms) as the dotted quad, so the checks see one form. Ranges come from ipaddr.js.
 */

/** Every address a host name resolves to. Injectable, so tests can play a resolver that lies. */
export type Resolver = (hostname: string) => Promise<string[]>

export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address)

/** Addresses of cloud metadata services: refused even inside a range the operator exempted. */
const METADATA = ['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254', 'fd00:ec2::23', 'fe80::a9fe:a9fe']

/** The ranges exempted for local development (WEBHOOK_ALLOW_PRIVATE_NETWORKS), parsed. */
export type AddressPolicy = { allowPrivate: [ipaddr.IPv4 | ipaddr.IPv6, number][] }

/** `127.0.0.0/8,::1/128` -> the policy, or the entry that is not a CIDR range. */
export function parseAllowList(text: string): AddressPolicy | { bad: string } {
  const allowPrivate: AddressPolicy['allowPrivate'] = []
  for (const entry of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    try {
      allowPrivate.push(ipaddr.parseCIDR(entry))
    } catch {
      return { bad: entry }
    }
  }
  return { allowPrivate }
}

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (CGNAT) address',
  private: 'a private address',
  reserved: 'a reserved address (documentation, benchmarking or future use)',
  uniqueLocal: 'an IPv6 unique-local address',
  teredo: 'a Teredo address',
  discard: 'a discard-only address',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT address',
  as112: 'an AS112 address',
  deprecated: 'a deprecated address',
  orchid2: 'an ORCHIDv2 address',
  rfc6145: 'an IPv4-translated address',
}

function embeddedIPv4(a: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const bytes = a.toByteArray()
  if (range === 'ipv4Mapped' || range === 'rfc6145') return new ipaddr.IPv4(bytes.slice(12, 16))
  if (range === 'rfc6052') return new ipaddr.IPv4(bytes.slice(12, 16)) // NAT64 64:ff9b::/96
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6)) // 2002:AABB:CCDD::/48
  return null
}

const inList = (a: ipaddr.IPv4 | ipaddr.IPv6, policy: AddressPolicy) =>
  policy.allowPrivate.some(([net, bits]) => net.kind() === a.kind() && a.match(net as never, bits))

/** Why the address is refused, in words naming it and the rule; null when it may be sent to. */
export function addressRefusal(address: string, policy: AddressPolicy): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''))
  } catch {
    return `${address} is not an IP address`
  }
  if (parsed.kind() === 'ipv6' && address.includes('%')) return `${address} names an IPv6 zone, which is for local links only`
  const normalized = parsed.toString()
  if (METADATA.some((m) => ipaddr.parse(m).toString() === normalized)) {
    return `${address} is a cloud metadata address, refused even when listed in WEBHOOK_ALLOW_PRIVATE_NETWORKS`
  }
  // A metadata address in an IPv6 form that embeds it (::ffff:169.254.169.254, 64:ff9b::a9fe:a9fe)
  // is refused before the allow list is read: a listed IPv6 range covering that form (::ffff:0:0/96,
  // 64:ff9b::/96, ::/0) must not let it through.
  if (parsed.kind() === 'ipv6') {
    const v4 = embeddedIPv4(parsed as ipaddr.IPv6, parsed.range())
    if (v4 && METADATA.includes(v4.toString())) {
      return `${address} embeds ${v4.toString()}, a cloud metadata address, refused even when listed in WEBHOOK_ALLOW_PRIVATE_NETWORKS`
    }
  }
  if (inList(parsed, policy)) return null
  const range = parsed.range()
  if (parsed.kind() === 'ipv6') {
    // The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) may embed the IPv4 address at any RFC 6052
    // position (/48../96): 64:ff9b:1:7f00:0:100:808:808 is 127.0.0.1 to a /48 translator, though its
    // last 32 bits read 8.8.8.8. Local-use is not the public internet: refused whole.
    if (range === 'rfc6052' && !parsed.match(ipaddr.parse('64:ff9b::'), 96)) {
      return `${address} is a local-use NAT64 address (64:ff9b:1::/48), not a public unicast address`
    }
    // ipaddr.js calls every IPv6 address outside its special ranges "unicast", including the reserved
    // space outside 2000::/3 (e.g. the deprecated IPv4-compatible ::127.0.0.1 = ::7f00:1). Only
    // 2000::/3 is global unicast.
    if (range === 'unicast' && !parsed.match(ipaddr.parse('2000::'), 3)) {
      return `${address} is a reserved address (outside 2000::/3, the IPv6 global unicast space), not a public unicast address`
    }
    const v4 = embeddedIPv4(parsed as ipaddr.IPv6, range)
    if (v4) {
      const inner = addressRefusal(v4.toString(), policy)
      const form = range === 'ipv4Mapped' ? 'an IPv4-mapped' : range === '6to4' ? 'a 6to4' : range === 'rfc6052' ? 'a NAT64' : 'an IPv4-translated'
      return inner === null ? null : `${address} is ${form} form of ${v4.toString()}, which is refused: ${inner}`
    }
  }
  if (range === 'unicast') return null
  return `${address} is ${RANGE_WORDS[range] ?? `not on the public internet (${range})`}, not a public unicast address`
}

/** Where the allow list must be set for a refusal to go away: every process that checks a URL. */
const WHERE = 'in the environment of the server, of growth worker and of growth admin webhook create (docs/webhooks.md)'

/**
 * How to let a refused address through for local development, when listing it would (never for a
 * cloud metadata address): the range to put in WEBHOOK_ALLOW_PRIVATE_NETWORKS, and where. A loopback
 * IPv4 address suggests all of 127.0.0.0/8; any other, itself alone.
 */
function localDevelopmentHint(address: string): string {
  try {
    const parsed = ipaddr.parse(address)
    const cidr = parsed.kind() === 'ipv4' && parsed.range() === 'loopback' ? '127.0.0.0/8' : `${parsed.toString()}/${parsed.kind() === 'ipv4' ? 32 : 128}`
    if (addressRefusal(address, { allowPrivate: [ipaddr.parseCIDR(cidr)] }) !== null) return ''
    return `; for local development, set WEBHOOK_ALLOW_PRIVATE_NETWORKS=${cidr} (a comma-separated list of CIDR ranges) ${WHERE}`
  } catch {
    return ''
  }
}

type UrlCheck = { ok: true; url: URL; host: string; addresses: string[] } | { ok: false; reason: string }

/**
 * The URL of an endpoint, checked as the contract says: a URL, https (http only to addresses the
 * operator exempted), no user name or password, and a host whose every address passes. Returns the
 * addresses that passed, for the sender to connect to.
 */
export async function checkUrl(text: string, policy: AddressPolicy, resolve: Resolver): Promise<UrlCheck> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return { ok: false, reason: `${JSON.stringify(text)} is not a URL (an IPv6 address with a zone is not one either)` }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `${url.protocol} URLs are not delivered to: use https` }
  if (url.username || url.password) return { ok: false, reason: 'a webhook URL may not carry a user name or password' }
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  if (!host) return { ok: false, reason: `${text} has no host` }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return { ok: false, reason: `${host} names this machine (localhost), not a public address; for local development, use 127.0.0.1 in its place and set WEBHOOK_ALLOW_PRIVATE_NETWORKS=127.0.0.0/8 ${WHERE}` }
  }
  let addresses: string[]
  if (ipaddr.isValid(host)) addresses = [host]
  else {
    try {
      addresses = await resolve(host)
    } catch (err) {
      return { ok: false, reason: `${host} does not resolve (${(err as { code?: string }).code ?? (err as Error).message})` }
    }
    if (!addresses.length) return { ok: false, reason: `${host} resolves to no address` }
  }
  for (const a of addresses) {
    const refusal = addressRefusal(a, policy)
    if (refusal) return { ok: false, reason: `${host === a ? refusal : `${host} resolves to ${a}, and ${refusal}`}${localDevelopmentHint(a)}` }
  }
  if (url.protocol === 'http:' && !addresses.every((a) => inList(ipaddr.parse(a), policy))) {
    return { ok: false, reason: `${url.origin} is not https; plain http goes only to addresses in WEBHOOK_ALLOW_PRIVATE_NETWORKS (for local development)` }
  }
  return { ok: true, url, host, addresses }
}
