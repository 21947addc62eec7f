import { describe, expect, test } from 'bun:test'
import { type AddressPolicy, addressRefusal, checkUrl, parseAllowList, type Resolver } from '../../server/src/domain/webhook-addresses.ts'

/**
 * The private-address guard, table by table (CONTRACT: Events and webhooks): no endpoint is saved
 * with, and nothing is sent to, an address outside the public unicast internet, in any spelling;
 * a name is resolved and every address must pass; https unless the host is in
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS; no user name or password; cloud metadata addresses are refused even
 * when listed. Pure: the resolver is played by each row, and no row touches the network.
 *
 * Each refused row names what the reason must say (the address as normalized, the rule). Rows of
 * kind `address` must be refused for their range, not because the text failed to parse: the guard
 * test at the end runs them again with everything listed and expects them all to pass, so a row
 * that was refused for the wrong reason shows.
 */

type Resolution = string[] | 'ENOTFOUND'

type Refused = {
  form: string
  url: string
  /** What the name resolves to (a row without it must not resolve anything). */
  resolves?: Resolution
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS for this row (default: empty). */
  allow?: string
  /** Every one of these must appear in the reason (case-insensitive). */
  says: string[]
  /**
   * address: refused for the range of an address (passes with everything listed);
   * metadata: a cloud metadata address (refused even with everything listed);
   * name: the name itself (localhost) or its resolution failed; url: the URL's form or scheme.
   */
  kind: 'address' | 'metadata' | 'name' | 'url'
}

type Allowed = {
  form: string
  url: string
  resolves?: Resolution
  allow?: string
  /** The addresses that passed, which the sender connects to. */
  addresses: string[]
}

/** The address words the guard uses for a range (one of them is in every `address` row's reason). */
const RANGE_WORD = /loopback|private|link-local|carrier-grade|multicast|reserved|unspecified|broadcast|unique-local|teredo|benchmarking|discard|local-use|metadata/i
/** What a reason says when the text never got as far as an address. */
const NOT_AN_ADDRESS = /not a URL|not an IP address|does not resolve|resolves to no address/i

const refused: Refused[] = [
  // IPv4 ranges
  { form: 'IPv4 loopback 127.0.0.1', url: 'https://127.0.0.1/hooks', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'IPv4 loopback, top of 127/8', url: 'https://127.255.255.254/', says: ['127.255.255.254', 'loopback'], kind: 'address' },
  { form: 'private 10/8', url: 'https://10.0.0.1/', says: ['10.0.0.1', 'private'], kind: 'address' },
  { form: 'private 10/8, top', url: 'https://10.255.255.255/', says: ['10.255.255.255', 'private'], kind: 'address' },
  { form: 'private 172.16/12, bottom', url: 'https://172.16.0.1/', says: ['172.16.0.1', 'private'], kind: 'address' },
  { form: 'private 172.16/12, top', url: 'https://172.31.255.254/', says: ['172.31.255.254', 'private'], kind: 'address' },
  { form: 'private 192.168/16', url: 'https://192.168.1.1/', says: ['192.168.1.1', 'private'], kind: 'address' },
  { form: 'IPv4 link-local 169.254/16', url: 'https://169.254.1.1/', says: ['169.254.1.1', 'link-local'], kind: 'address' },
  { form: 'CGNAT 100.64/10, bottom', url: 'https://100.64.0.1/', says: ['100.64.0.1', 'carrier-grade NAT'], kind: 'address' },
  { form: 'CGNAT 100.64/10, top', url: 'https://100.127.255.254/', says: ['100.127.255.254', 'CGNAT'], kind: 'address' },
  { form: 'IPv4 multicast 224.0.0.1', url: 'https://224.0.0.1/', says: ['224.0.0.1', 'multicast'], kind: 'address' },
  { form: 'IPv4 multicast 239.255.255.250 (SSDP)', url: 'https://239.255.255.250/', says: ['239.255.255.250', 'multicast'], kind: 'address' },
  { form: 'reserved 240/4', url: 'https://240.0.0.1/', says: ['240.0.0.1', 'reserved'], kind: 'address' },
  { form: 'reserved 0/8 ("this network")', url: 'https://0.1.2.3/', says: ['0.1.2.3', 'unspecified'], kind: 'address' },
  { form: 'limited broadcast 255.255.255.255', url: 'https://255.255.255.255/', says: ['255.255.255.255', 'broadcast'], kind: 'address' },
  { form: 'documentation TEST-NET-1 192.0.2/24', url: 'https://192.0.2.1/', says: ['192.0.2.1', 'documentation'], kind: 'address' },
  { form: 'documentation TEST-NET-2 198.51.100/24', url: 'https://198.51.100.7/', says: ['198.51.100.7', 'documentation'], kind: 'address' },
  { form: 'documentation TEST-NET-3 203.0.113/24', url: 'https://203.0.113.9/', says: ['203.0.113.9', 'documentation'], kind: 'address' },
  { form: 'benchmarking 198.18/15, bottom', url: 'https://198.18.0.1/', says: ['198.18.0.1', 'benchmarking'], kind: 'address' },
  { form: 'benchmarking 198.18/15, top', url: 'https://198.19.255.254/', says: ['198.19.255.254', 'benchmarking'], kind: 'address' },
  { form: 'IPv4 unspecified 0.0.0.0', url: 'https://0.0.0.0/', says: ['0.0.0.0', 'unspecified'], kind: 'address' },
  { form: '6to4 relay anycast 192.88.99/24', url: 'https://192.88.99.1/', says: ['192.88.99.1', 'reserved'], kind: 'address' },
  { form: 'IETF protocol assignments 192.0.0/24', url: 'https://192.0.0.8/', says: ['192.0.0.8', 'reserved'], kind: 'address' },

  // IPv6 ranges
  { form: 'IPv6 loopback ::1', url: 'https://[::1]/', says: ['::1', 'loopback'], kind: 'address' },
  { form: 'IPv6 loopback, uncompressed', url: 'https://[0:0:0:0:0:0:0:1]/', says: ['::1', 'loopback'], kind: 'address' },
  { form: 'IPv6 link-local fe80::/10', url: 'https://[fe80::1]/', says: ['fe80::1', 'link-local'], kind: 'address' },
  { form: 'IPv6 link-local, top of fe80::/10', url: 'https://[febf::1]/', says: ['febf::1', 'link-local'], kind: 'address' },
  { form: 'IPv6 multicast ff02::1', url: 'https://[ff02::1]/', says: ['ff02::1', 'multicast'], kind: 'address' },
  { form: 'IPv6 multicast ff05::1:3', url: 'https://[ff05::1:3]/', says: ['ff05::1:3', 'multicast'], kind: 'address' },
  { form: 'IPv6 documentation 2001:db8::/32', url: 'https://[2001:db8::1]/', says: ['2001:db8::1', 'documentation'], kind: 'address' },
  { form: 'IPv6 unspecified ::', url: 'https://[::]/', says: ['::', 'unspecified'], kind: 'address' },
  { form: 'IPv6 unique-local fc00::/7 (fc)', url: 'https://[fc00::1]/', says: ['fc00::1', 'unique-local'], kind: 'address' },
  { form: 'IPv6 unique-local fc00::/7 (fd)', url: 'https://[fd12:3456::1]/', says: ['fd12:3456::1', 'unique-local'], kind: 'address' },
  { form: 'Teredo 2001::/32', url: 'https://[2001::1]/', says: ['2001::1', 'teredo'], kind: 'address' },
  { form: 'Teredo, a real client address', url: 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', says: ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'], kind: 'address' },
  { form: 'IPv6 benchmarking 2001:2::/48', url: 'https://[2001:2::1]/', says: ['2001:2::1', 'benchmarking'], kind: 'address' },
  { form: 'IPv6 discard-only 100::/64', url: 'https://[100::1]/', says: ['100::1', 'discard'], kind: 'address' },
  { form: 'IPv6 deprecated IPv4-compatible ::127.0.0.1', url: 'https://[::127.0.0.1]/', says: ['::7f00:1', 'reserved'], kind: 'address' },

  // other spellings of IPv4 addresses (the URL parser writes them as the dotted quad)
  { form: 'decimal http://2130706433/', url: 'http://2130706433/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'decimal 3232235777 (192.168.1.1)', url: 'https://3232235777/', says: ['192.168.1.1', 'private'], kind: 'address' },
  { form: 'octal dotted 0177.0.0.1', url: 'https://0177.0.0.1/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'octal whole 017700000001', url: 'https://017700000001/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'octal with leading zeros 012.0.0.01', url: 'https://012.0.0.01/', says: ['10.0.0.1', 'private'], kind: 'address' },
  { form: 'hex dotted 0x7f.0.0.1', url: 'https://0x7f.0.0.1/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'hex whole 0x7f000001', url: 'https://0x7f000001/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'hex upper case 0X7F.0X0.0X0.0X1', url: 'https://0X7F.0X0.0X0.0X1/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'short form 127.1', url: 'https://127.1/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'short form 10.1', url: 'https://10.1/', says: ['10.0.0.1', 'private'], kind: 'address' },
  { form: 'three-part form 192.168.257', url: 'https://192.168.257/', says: ['192.168.1.1', 'private'], kind: 'address' },
  { form: 'the single number 0', url: 'https://0/', says: ['0.0.0.0', 'unspecified'], kind: 'address' },
  { form: 'mixed hex and short 0x7f.1', url: 'https://0x7f.1/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'mixed octal, hex, decimal 0300.0xa8.1.1', url: 'https://0300.0xa8.1.1/', says: ['192.168.1.1', 'private'], kind: 'address' },
  { form: 'mixed hex and 24-bit decimal 0xa9.16689662 (169.254.169.254)', url: 'https://0xa9.16689662/', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'decimal with padding zeros 127.000.000.001', url: 'https://127.000.000.001/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'trailing dot 127.0.0.1.', url: 'https://127.0.0.1./', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'percent-encoded %31%32%37.0.0.1', url: 'https://%31%32%37.0.0.1/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'percent-encoded dots 10%2e0%2e0%2e1', url: 'https://10%2e0%2e0%2e1/', says: ['10.0.0.1', 'private'], kind: 'address' },
  { form: 'full-width digits １２７.０.０.１', url: 'https://\uFF11\uFF12\uFF17.\uFF10.\uFF10.\uFF11/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'ideographic full stops 127。0。0。1', url: 'https://127\u30020\u30020\u30021/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'with a port and user-visible path 127.0.0.1:8443', url: 'https://127.0.0.1:8443/a/b?c=d', says: ['127.0.0.1', 'loopback'], kind: 'address' },

  // IPv6 forms that carry an IPv4 address
  { form: 'IPv6 with a zone id fe80::1%25eth0', url: 'https://[fe80::1%25eth0]/', says: ['fe80::1%25eth0', 'zone'], kind: 'url' },
  { form: 'IPv4-mapped ::ffff:127.0.0.1', url: 'https://[::ffff:127.0.0.1]/', says: ['::ffff:7f00:1', 'IPv4-mapped', '127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'IPv4-mapped hex ::ffff:7f00:1', url: 'https://[::ffff:7f00:1]/', says: ['::ffff:7f00:1', 'IPv4-mapped', '127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'IPv4-mapped ::ffff:10.0.0.1', url: 'https://[::ffff:10.0.0.1]/', says: ['::ffff:a00:1', 'IPv4-mapped', '10.0.0.1', 'private'], kind: 'address' },
  { form: 'IPv4-mapped, uncompressed 0:0:0:0:0:ffff:192.168.0.1', url: 'https://[0:0:0:0:0:ffff:192.168.0.1]/', says: ['192.168.0.1', 'IPv4-mapped', 'private'], kind: 'address' },
  { form: 'IPv4-translated ::ffff:0:7f00:1', url: 'https://[::ffff:0:7f00:1]/', says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'NAT64 64:ff9b::7f00:1', url: 'https://[64:ff9b::7f00:1]/', says: ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'NAT64 64:ff9b::a00:1', url: 'https://[64:ff9b::a00:1]/', says: ['64:ff9b::a00:1', 'NAT64', '10.0.0.1', 'private'], kind: 'address' },
  { form: 'NAT64 dotted 64:ff9b::192.168.0.1', url: 'https://[64:ff9b::192.168.0.1]/', says: ['NAT64', '192.168.0.1', 'private'], kind: 'address' },
  { form: 'local-use NAT64 64:ff9b:1::/48 (a /48 translator embeds 127.0.0.1 here)', url: 'https://[64:ff9b:1:7f00:0:100:808:808]/', says: ['64:ff9b:1:7f00:0:100:808:808', 'NAT64'], kind: 'address' },
  { form: '6to4 2002:7f00:1::', url: 'https://[2002:7f00:1::]/', says: ['2002:7f00:1::', '6to4', '127.0.0.1', 'loopback'], kind: 'address' },
  { form: '6to4 2002:a00:1::', url: 'https://[2002:a00:1::]/', says: ['2002:a00:1::', '6to4', '10.0.0.1', 'private'], kind: 'address' },
  { form: '6to4 of CGNAT 2002:6440:1::1', url: 'https://[2002:6440:1::1]/', says: ['6to4', '100.64.0.1', 'carrier-grade'], kind: 'address' },

  // names
  { form: 'localhost', url: 'https://localhost/', says: ['localhost'], kind: 'name' },
  { form: 'LOCALHOST. (upper case, trailing dot)', url: 'https://LOCALHOST./', says: ['localhost'], kind: 'name' },
  { form: 'foo.localhost', url: 'https://foo.localhost/', says: ['foo.localhost', 'localhost'], kind: 'name' },
  { form: 'a name resolving to 127.0.0.1', url: 'https://hooks.example.test/', resolves: ['127.0.0.1'], says: ['hooks.example.test', '127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'a name resolving to 10.0.0.5', url: 'https://hooks.example.test/', resolves: ['10.0.0.5'], says: ['hooks.example.test', '10.0.0.5', 'private'], kind: 'address' },
  { form: 'a name resolving to 169.254.169.254', url: 'https://metadata.example.test/', resolves: ['169.254.169.254'], says: ['metadata.example.test', '169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'a name resolving to ::1', url: 'https://hooks.example.test/', resolves: ['::1'], says: ['hooks.example.test', '::1', 'loopback'], kind: 'address' },
  { form: 'a name resolving to fd00::1', url: 'https://hooks.example.test/', resolves: ['fd00::1'], says: ['hooks.example.test', 'fd00::1', 'unique-local'], kind: 'address' },
  { form: 'a name resolving to ::ffff:192.168.0.1', url: 'https://hooks.example.test/', resolves: ['::ffff:192.168.0.1'], says: ['192.168.0.1', 'private'], kind: 'address' },
  { form: 'a name resolving to one public and one private address', url: 'https://hooks.example.test/', resolves: ['93.184.216.34', '10.0.0.1'], says: ['hooks.example.test', '10.0.0.1', 'private'], kind: 'address' },
  { form: 'a name resolving to public IPv6 and loopback IPv4', url: 'https://hooks.example.test/', resolves: ['2606:4700:4700::1111', '127.0.0.1'], says: ['127.0.0.1', 'loopback'], kind: 'address' },
  { form: 'a name resolving to a link-local address with a zone', url: 'https://hooks.example.test/', resolves: ['fe80::1%eth0'], says: ['fe80::1%eth0', 'zone'], kind: 'name' },
  { form: 'a name that does not resolve (ENOTFOUND)', url: 'https://nowhere.example.test/', resolves: 'ENOTFOUND', says: ['nowhere.example.test', 'does not resolve', 'ENOTFOUND'], kind: 'name' },
  { form: 'a name that resolves to nothing', url: 'https://empty.example.test/', resolves: [], says: ['empty.example.test', 'no address'], kind: 'name' },

  // the URL itself
  { form: 'a user name user@', url: 'https://user@93.184.216.34/', says: ['user name'], kind: 'url' },
  { form: 'a user name and password user:pass@', url: 'https://user:pass@93.184.216.34/', says: ['user name or password'], kind: 'url' },
  { form: 'a password alone :pass@', url: 'https://:pass@hooks.example.test/', resolves: ['93.184.216.34'], says: ['password'], kind: 'url' },
  { form: 'a user name even to a listed address', url: 'http://user@127.0.0.1:8080/', allow: '127.0.0.0/8', says: ['user name'], kind: 'url' },
  { form: 'http to a public address', url: 'http://93.184.216.34/', says: ['http://93.184.216.34', 'https'], kind: 'url' },
  { form: 'http to a name resolving publicly', url: 'http://hooks.example.test/', resolves: ['93.184.216.34'], says: ['http://hooks.example.test', 'https'], kind: 'url' },
  { form: 'http to a public address when another range is listed', url: 'http://93.184.216.34/', allow: '10.0.0.0/8', says: ['https'], kind: 'url' },
  { form: 'ftp: scheme', url: 'ftp://93.184.216.34/', says: ['ftp:', 'https'], kind: 'url' },
  { form: 'file: scheme', url: 'file:///etc/passwd', says: ['file:', 'https'], kind: 'url' },
  { form: 'javascript: scheme', url: 'javascript:alert(1)', says: ['javascript:', 'https'], kind: 'url' },
  { form: 'data: scheme', url: 'data:text/plain,hello', says: ['data:', 'https'], kind: 'url' },
  { form: 'gopher: scheme to loopback', url: 'gopher://127.0.0.1:25/', says: ['gopher:', 'https'], kind: 'url' },
  { form: 'malformed: not a URL at all', url: 'not a url', says: ['not a url', 'is not a URL'], kind: 'url' },
  { form: 'malformed: the empty string', url: '', says: ['is not a URL'], kind: 'url' },
  { form: 'malformed: a scheme and no host', url: 'https://', says: ['is not a URL'], kind: 'url' },
  { form: 'malformed: an unclosed IPv6 bracket', url: 'https://[::1/', says: ['is not a URL'], kind: 'url' },
  { form: 'malformed: an IPv4 part over 255', url: 'https://256.0.0.1/', says: ['is not a URL'], kind: 'url' },
  { form: 'malformed: a space in the host', url: 'https://exa mple.com/', says: ['is not a URL'], kind: 'url' },

  // cloud metadata: refused even when its range is listed
  { form: 'metadata 169.254.169.254, 169.254.0.0/16 listed', url: 'https://169.254.169.254/latest/meta-data/', allow: '169.254.0.0/16', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'metadata over http, 169.254.0.0/16 listed', url: 'http://169.254.169.254/', allow: '169.254.0.0/16', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'metadata in decimal 2852039166, 169.254.0.0/16 listed', url: 'http://2852039166/', allow: '169.254.0.0/16', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'metadata fd00:ec2::254, fd00::/8 listed', url: 'https://[fd00:ec2::254]/', allow: 'fd00::/8', says: ['fd00:ec2::254', 'metadata'], kind: 'metadata' },
  { form: 'metadata fd00:ec2::254 uncompressed, fd00::/8 listed', url: 'https://[fd00:0ec2:0:0:0:0:0:0254]/', allow: 'fd00::/8', says: ['fd00:ec2::254', 'metadata'], kind: 'metadata' },
  { form: 'metadata 100.100.100.200, 100.64.0.0/10 listed', url: 'https://100.100.100.200/', allow: '100.64.0.0/10', says: ['100.100.100.200', 'metadata'], kind: 'metadata' },
  { form: 'metadata 169.254.170.2 (ECS), 169.254.0.0/16 listed', url: 'https://169.254.170.2/', allow: '169.254.0.0/16', says: ['169.254.170.2', 'metadata'], kind: 'metadata' },
  { form: 'metadata IPv4-mapped, 169.254.0.0/16 listed', url: 'https://[::ffff:169.254.169.254]/', allow: '169.254.0.0/16', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'metadata IPv4-mapped, ::ffff:0:0/96 listed', url: 'https://[::ffff:169.254.169.254]/', allow: '::ffff:0:0/96', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'metadata NAT64, 64:ff9b::/96 listed', url: 'https://[64:ff9b::a9fe:a9fe]/', allow: '64:ff9b::/96', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'metadata 6to4, everything listed', url: 'https://[2002:a9fe:a9fe::]/', allow: '0.0.0.0/0,::/0', says: ['169.254.169.254', 'metadata'], kind: 'metadata' },
  { form: 'a name resolving to metadata, 169.254.0.0/16 listed', url: 'http://dev.example.test/', resolves: ['169.254.169.254'], allow: '169.254.0.0/16', says: ['dev.example.test', '169.254.169.254', 'metadata'], kind: 'metadata' },

  // a listed range exempts only itself
  { form: 'private 10.0.0.1 while only 127.0.0.0/8 is listed', url: 'http://10.0.0.1/', allow: '127.0.0.0/8', says: ['10.0.0.1', 'private'], kind: 'address' },
  { form: 'IPv6 loopback while only 127.0.0.0/8 is listed', url: 'http://[::1]/', allow: '127.0.0.0/8', says: ['::1', 'loopback'], kind: 'address' },
]

const allowed: Allowed[] = [
  { form: 'https to a public IPv4 address', url: 'https://93.184.216.34/hooks', addresses: ['93.184.216.34'] },
  { form: 'https to 8.8.8.8', url: 'https://8.8.8.8/', addresses: ['8.8.8.8'] },
  { form: 'https to a public IPv6 address', url: 'https://[2606:4700:4700::1111]/', addresses: ['2606:4700:4700::1111'] },
  { form: 'https to another public IPv6 address', url: 'https://[2001:4860:4860::8888]/', addresses: ['2001:4860:4860::8888'] },
  { form: 'a public address in decimal (134744072 = 8.8.8.8)', url: 'https://134744072/', addresses: ['8.8.8.8'] },
  { form: 'just past private 172.16/12: 172.32.0.1', url: 'https://172.32.0.1/', addresses: ['172.32.0.1'] },
  { form: 'just past CGNAT 100.64/10: 100.128.0.1', url: 'https://100.128.0.1/', addresses: ['100.128.0.1'] },
  { form: 'just past benchmarking 198.18/15: 198.20.0.1', url: 'https://198.20.0.1/', addresses: ['198.20.0.1'] },
  { form: 'just past private 10/8: 11.0.0.1', url: 'https://11.0.0.1/', addresses: ['11.0.0.1'] },
  { form: 'a name resolving to a public IPv4 address', url: 'https://hooks.example.test/', resolves: ['93.184.216.34'], addresses: ['93.184.216.34'] },
  { form: 'a name resolving to public IPv4 and IPv6 addresses', url: 'https://api.example.test/in', resolves: ['1.1.1.1', '2606:4700::6810:85e5'], addresses: ['1.1.1.1', '2606:4700::6810:85e5'] },
  { form: 'a name resolving to a public IPv6 address only', url: 'https://v6.example.test/', resolves: ['2a00:1450:4001:82b::200e'], addresses: ['2a00:1450:4001:82b::200e'] },
  { form: 'an upper-case name with a trailing dot', url: 'https://HOOKS.Example.TEST./', resolves: ['93.184.216.34'], addresses: ['93.184.216.34'] },
  { form: 'a name resolving to the IPv4-mapped form of a public address', url: 'https://mapped.example.test/', resolves: ['::ffff:93.184.216.34'], addresses: ['::ffff:93.184.216.34'] },
  { form: 'NAT64 of a public address 64:ff9b::808:808', url: 'https://[64:ff9b::808:808]/', addresses: ['64:ff9b::808:808'] },
  { form: '6to4 of a public address 2002:808:808::1', url: 'https://[2002:808:808::1]/', addresses: ['2002:808:808::1'] },
  { form: 'IPv4-mapped public address ::ffff:8.8.8.8', url: 'https://[::ffff:8.8.8.8]/', addresses: ['::ffff:808:808'] },
  { form: 'a port, a path and a query', url: 'https://hooks.example.test:8443/path/to/hook?team=7&x=%20y', resolves: ['93.184.216.34'], addresses: ['93.184.216.34'] },
  { form: 'http to 127.0.0.1 with 127.0.0.0/8 listed', url: 'http://127.0.0.1:8080/hooks', allow: '127.0.0.0/8', addresses: ['127.0.0.1'] },
  { form: 'https to 127.0.0.1 with 127.0.0.0/8 listed', url: 'https://127.0.0.1/hooks', allow: '127.0.0.0/8', addresses: ['127.0.0.1'] },
  { form: 'http to 127.1 (short form) with 127.0.0.0/8 listed', url: 'http://127.1:9000/', allow: '127.0.0.0/8', addresses: ['127.0.0.1'] },
  { form: 'http to ::1 with ::1/128 listed', url: 'http://[::1]:8080/hooks', allow: '::1/128', addresses: ['::1'] },
  { form: 'https to ::1 with ::1/128 listed', url: 'https://[::1]/', allow: '127.0.0.0/8, ::1/128', addresses: ['::1'] },
  { form: 'http to 10.x with 10.0.0.0/8 listed', url: 'http://10.1.2.3:3000/in', allow: '10.0.0.0/8', addresses: ['10.1.2.3'] },
  { form: 'http to a name resolving into a listed range', url: 'http://receiver.internal.test:8080/', resolves: ['10.0.0.7', '10.0.0.8'], allow: '10.0.0.0/8', addresses: ['10.0.0.7', '10.0.0.8'] },
  { form: 'https to a public address while a private range is listed', url: 'https://93.184.216.34/', allow: '10.0.0.0/8', addresses: ['93.184.216.34'] },
  { form: 'a link-local address other than metadata, 169.254.0.0/16 listed', url: 'http://169.254.10.10/', allow: '169.254.0.0/16', addresses: ['169.254.10.10'] },
]

function policyOf(allow = ''): AddressPolicy {
  const p = parseAllowList(allow)
  if ('bad' in p) throw new Error(`bad allow list in a row: ${p.bad}`)
  return p
}

/** A resolver that answers as the row says and records what it was asked; a row without an answer must not ask. */
function resolverOf(resolves: Resolution | undefined) {
  const asked: string[] = []
  const resolve: Resolver = async (hostname) => {
    asked.push(hostname)
    if (resolves === undefined) throw new Error(`the guard resolved ${hostname}, but this row gives no name to resolve`)
    if (resolves === 'ENOTFOUND') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    return resolves
  }
  return { resolve, asked }
}

describe('refused', () => {
  for (const row of refused) {
    test(row.form, async () => {
      const { resolve, asked } = resolverOf(row.resolves)
      const r = await checkUrl(row.url, policyOf(row.allow), resolve)
      if (r.ok) throw new Error(`${row.url} was allowed (addresses ${r.addresses.join(', ')})`)
      for (const word of row.says) expect(r.reason.toLowerCase()).toContain(word.toLowerCase())
      if (row.kind === 'address' || row.kind === 'metadata') expect(r.reason).not.toMatch(NOT_AN_ADDRESS)
      if (row.kind === 'address') expect(r.reason).toMatch(RANGE_WORD)
      // A name is resolved exactly once; an address literal never is.
      expect(asked.length).toBeLessThanOrEqual(1)
      if (row.resolves !== undefined && row.kind !== 'url') expect(asked).toHaveLength(1)
    })
  }
})

describe('allowed', () => {
  for (const row of allowed) {
    test(row.form, async () => {
      const { resolve, asked } = resolverOf(row.resolves)
      const r = await checkUrl(row.url, policyOf(row.allow), resolve)
      if (!r.ok) throw new Error(`${row.url} was refused: ${r.reason}`)
      expect(r.addresses).toEqual(row.addresses)
      expect(asked).toHaveLength(row.resolves === undefined ? 0 : 1)
      // Each address that passed passes on its own too (the sender connects to the first).
      for (const a of r.addresses) expect(addressRefusal(a, policyOf(row.allow))).toBeNull()
    })
  }

  test('the URL kept is the parsed one: port, path and query intact, the name lower-cased', async () => {
    const r = await checkUrl('https://HOOKS.Example.test:8443/path/to/hook?team=7&x=%20y', policyOf(), async () => ['93.184.216.34'])
    if (!r.ok) throw new Error(r.reason)
    expect(r.host).toBe('hooks.example.test')
    expect(r.url.port).toBe('8443')
    expect(r.url.pathname).toBe('/path/to/hook')
    expect(r.url.search).toBe('?team=7&x=%20y')
  })

  test('the resolver is asked for the name without its trailing dot, in lower case', async () => {
    const { resolve, asked } = resolverOf(['93.184.216.34'])
    expect((await checkUrl('https://HOOKS.Example.TEST./', policyOf(), resolve)).ok).toBe(true)
    expect(asked).toEqual(['hooks.example.test'])
  })
})

describe('the table bites', () => {
  test('it has at least 60 refused forms and 15 allowed ones, each named once', () => {
    expect(refused.length).toBeGreaterThanOrEqual(60)
    expect(allowed.length).toBeGreaterThanOrEqual(15)
    const names = [...refused, ...allowed].map((r) => r.form)
    expect(new Set(names).size).toBe(names.length)
  })

  test('most refusals are for an address range, not for text that failed to parse', async () => {
    let forRange = 0
    for (const row of refused.filter((r) => r.kind === 'address' || r.kind === 'metadata')) {
      const r = await checkUrl(row.url, policyOf(row.allow), resolverOf(row.resolves).resolve)
      if (!r.ok && RANGE_WORD.test(r.reason) && !NOT_AN_ADDRESS.test(r.reason)) forRange++
    }
    expect(forRange).toBeGreaterThanOrEqual(70)
  })

  test('with every range listed, each address row passes: it was refused for its range and for nothing else', async () => {
    const everything = policyOf('0.0.0.0/0,::/0')
    const stillRefused: string[] = []
    for (const row of refused.filter((r) => r.kind === 'address')) {
      const r = await checkUrl(row.url, everything, resolverOf(row.resolves).resolve)
      if (!r.ok) stillRefused.push(`${row.form}: ${r.reason}`)
    }
    expect(stillRefused).toEqual([])
  })

  test('with every range listed, each metadata row is still refused', async () => {
    const everything = policyOf('0.0.0.0/0,::/0')
    const letThrough: string[] = []
    for (const row of refused.filter((r) => r.kind === 'metadata')) {
      const r = await checkUrl(row.url, everything, resolverOf(row.resolves).resolve)
      if (r.ok || !r.reason.includes('metadata')) letThrough.push(`${row.url}: ${r.ok ? 'allowed' : r.reason}`)
    }
    expect(letThrough).toEqual([])
  })

  test('a refusal that listing the address would lift says so: WEBHOOK_ALLOW_PRIVATE_NETWORKS, the range to set, and where', async () => {
    const hint = (cidr: string) => `for local development, set WEBHOOK_ALLOW_PRIVATE_NETWORKS=${cidr} (a comma-separated list of CIDR ranges) in the environment of the server, of growth worker and of growth admin webhook create`
    const cases: [string, Resolution | undefined, string][] = [
      ['http://127.0.0.1:4010/hooks', undefined, hint('127.0.0.0/8')],
      ['https://[::1]/hooks', undefined, hint('::1/128')],
      ['https://192.168.1.20/hooks', undefined, hint('192.168.1.20/32')],
      ['https://hooks.example.test/', ['127.0.0.1'], hint('127.0.0.0/8')],
      ['https://localhost:4010/hooks', undefined, 'use 127.0.0.1 in its place and set WEBHOOK_ALLOW_PRIVATE_NETWORKS=127.0.0.0/8'],
    ]
    for (const [url, resolves, says] of cases) {
      const r = await checkUrl(url, policyOf(), resolverOf(resolves).resolve)
      expect(r.ok ? 'allowed' : r.reason, url).toContain(says)
    }
    // and the range it names does lift it
    expect((await checkUrl('http://127.0.0.1:4010/hooks', policyOf('127.0.0.0/8'), resolverOf(undefined).resolve)).ok).toBe(true)
    // A metadata address is refused even when listed: nothing suggests listing it.
    const metadata = await checkUrl('http://169.254.169.254/latest', policyOf('169.254.0.0/16'), resolverOf(undefined).resolve)
    expect(metadata.ok ? 'allowed' : metadata.reason).not.toContain('for local development')
  })

  test('the spellings of 127.0.0.1 are refused with the very reason 127.0.0.1 gets', async () => {
    const plain = await checkUrl('https://127.0.0.1/', policyOf(), resolverOf(undefined).resolve)
    if (plain.ok) throw new Error('127.0.0.1 allowed')
    for (const url of ['http://2130706433/', 'https://0177.0.0.1/', 'https://017700000001/', 'https://0x7f.0.0.1/', 'https://0x7f000001/', 'https://127.1/', 'https://%31%32%37.0.0.1/', 'https://\uFF11\uFF12\uFF17.\uFF10.\uFF10.\uFF11/']) {
      const r = await checkUrl(url, policyOf(), resolverOf(undefined).resolve)
      expect(r.ok ? 'allowed' : r.reason).toBe(plain.reason)
    }
  })
})

describe('addressRefusal, one address', () => {
  test('names the address and its rule; null for a public one', () => {
    const none = policyOf()
    expect(addressRefusal('127.0.0.1', none)).toContain('loopback')
    expect(addressRefusal('10.0.0.1', none)).toContain('10.0.0.1')
    expect(addressRefusal('[::1]', none)).toContain('loopback')
    expect(addressRefusal('not-an-address', none)).toContain('not an IP address')
    expect(addressRefusal('93.184.216.34', none)).toBeNull()
    expect(addressRefusal('2606:4700:4700::1111', none)).toBeNull()
    expect(addressRefusal('169.254.169.254', policyOf('0.0.0.0/0'))).toContain('metadata')
    expect(addressRefusal('fe80::a9fe:a9fe', policyOf('fe80::/10'))).toContain('metadata')
  })
})

describe('parseAllowList', () => {
  const cases: [string, string, { ranges?: number; bad?: string }][] = [
    ['empty', '', { ranges: 0 }],
    ['blank', '   ', { ranges: 0 }],
    ['one IPv4 range', '127.0.0.0/8', { ranges: 1 }],
    ['IPv4 and IPv6 ranges with spaces', '127.0.0.0/8, ::1/128 ,fd00::/8', { ranges: 3 }],
    ['empty entries skipped', '10.0.0.0/8,,', { ranges: 1 }],
    ['an IPv4 prefix over 32', '10.0.0.0/33', { bad: '10.0.0.0/33' }],
    ['an IPv6 prefix over 128', '::/129', { bad: '::/129' }],
    ['an address without a prefix', '127.0.0.1', { bad: '127.0.0.1' }],
    ['a word', 'localhost', { bad: 'localhost' }],
    ['the bad entry of several, trimmed', '127.0.0.0/8, 10.0.0.0/x', { bad: '10.0.0.0/x' }],
    ['a name with a prefix', 'example.com/24', { bad: 'example.com/24' }],
  ]
  for (const [name, text, want] of cases) {
    test(`${name}: ${JSON.stringify(text)}`, () => {
      const p = parseAllowList(text)
      if (want.bad !== undefined) expect(p).toEqual({ bad: want.bad })
      else {
        if ('bad' in p) throw new Error(`refused: ${p.bad}`)
        expect(p.allowPrivate).toHaveLength(want.ranges!)
      }
    })
  }

  test('an IPv6 range exempts its IPv6 addresses and not IPv4 ones', async () => {
    const p = policyOf('fd00::/8')
    expect(addressRefusal('fd00::1', p)).toBeNull()
    expect(addressRefusal('fc00::1', p)).toContain('unique-local')
    expect(addressRefusal('10.0.0.1', p)).toContain('private')
    const http = await checkUrl('http://[fd12::5]:8080/', p, resolverOf(undefined).resolve)
    expect(http.ok).toBe(true)
  })
})
