import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which resolved addresses the platform may call. Integrators give us URLs; without this check a
 * URL could point our servers at their own network (SSRF). Loopback and private ranges are opened
 * only by configuration (development and tests call services on loopback); everything else that is
 * not plain global unicast is refused always.
 *
 * The ranges are ipaddr.js's (`range()` of a parsed address), not a list kept here:
 * - opened by `allowLoopback`: `loopback` (127.0.0.0/8, ::1);
 * - opened by `allowPrivate`: `private` (10/8, 172.16/12, 192.168/16), `carrierGradeNat`
 *   (100.64/10), `uniqueLocal` (fc00::/7);
 * - refused always: every other named range (link-local with cloud metadata at 169.254.169.254,
 *   unspecified, multicast, broadcast, reserved and documentation, benchmarking, site-local
 *   fec0::/10, 6to4 2002::/16, Teredo, ORCHID, AMT, AS112, discard, segment routing, ...) and any
 *   IPv6 address outside global unicast 2000::/3 (which takes in IPv4-compatible `::/96`).
 *
 * IPv4 written inside IPv6 is judged as the IPv4 address it reaches where that mapping is what a
 * network does with it: IPv4-mapped `::ffff:0:0/96` (a dual-stack socket connects to the IPv4
 * address) and NAT64 `64:ff9b::/96` (DNS64 gives these for IPv4-only integrators on IPv6-only
 * networks, and the gateway forwards to the embedded address). Other forms that carry an IPv4
 * address (6to4, Teredo, IPv4-compatible, IPv4-translated, local-use NAT64 `64:ff9b:1::/48`)
 * are tunnels or deprecated; no integrator needs them, so they are refused outright rather than
 * decoded.
 */
export interface AddressPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

export const STRICT_POLICY: AddressPolicy = { allowLoopback: false, allowPrivate: false };

const PRIVATE_RANGES = new Set(['private', 'carrierGradeNat', 'uniqueLocal']);

/** Plain words for the ranges refused always; any other name ipaddr.js gives is "reserved". */
const ALWAYS_FORBIDDEN_WORDS: Record<string, string> = {
  linkLocal: 'a link-local address',
  unspecified: 'the unspecified address (reserved)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  deprecatedSiteLocal: 'a site-local address (deprecated, reserved)',
  '6to4': 'a 6to4 tunnel address',
  teredo: 'a Teredo tunnel address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a local-use NAT64 address',
};

/** The well-known NAT64 prefix 64:ff9b::/96 (RFC 6052), whose last 32 bits are the IPv4 address. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
/** Global unicast: every IPv6 address outside it and the named ranges is unassigned or special. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Why an address may not be called under the policy, or undefined when it may. */
export function forbiddenReason(rawAddress: string, policy: AddressPolicy): string | undefined {
  const verdict = judge(rawAddress, policy);
  return typeof verdict === 'string' ? verdict : verdict && `${verdict.shown} is ${verdict.words}`;
}

/**
 * What an address is, when the policy forbids it (`a loopback address`), without the address: for
 * an address a host name resolved to, which the integrator did not write and need not be shown.
 */
export function forbiddenKind(rawAddress: string, policy: AddressPolicy): string | undefined {
  const verdict = judge(rawAddress, policy);
  return typeof verdict === 'string' ? verdict : verdict?.words;
}

function judge(rawAddress: string, policy: AddressPolicy): { shown: string; words: string } | 'not an IP address' | undefined {
  // net.isIP first: ipaddr.js also reads loose IPv4 spellings (octal, `127.1`) that no resolver returns.
  const family = isIP(rawAddress);
  if (family === 0) return 'not an IP address';
  const parsed = family === 4 ? ipaddr.IPv4.parse(rawAddress) : ipaddr.IPv6.parse(dottedTailAsHex(rawAddress));
  const address = embeddedIPv4(parsed) ?? parsed;
  const shown = address === parsed ? rawAddress : `${rawAddress} (IPv4 ${address.toString()})`;
  const range = address.range();

  if (range === 'unicast') {
    if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST)) return { shown, words: 'not a global unicast address (reserved)' };
    return undefined;
  }
  if (range === 'loopback') return policy.allowLoopback ? undefined : { shown, words: 'a loopback address' };
  if (PRIVATE_RANGES.has(range)) return policy.allowPrivate ? undefined : { shown, words: 'a private network address' };
  return { shown, words: ALWAYS_FORBIDDEN_WORDS[range] ?? `a reserved address (${range})` };
}

/**
 * `::ffff:10.0.0.1` written `::ffff:a00:1`. ipaddr.js reads every dotted tail as IPv4-mapped (it
 * takes `::10.0.0.1`, IPv4-compatible, for `::ffff:10.0.0.1`), so the tail is spelled in hex first.
 */
function dottedTailAsHex(address: string): string {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/.exec(address);
  if (!tail) return address;
  const [a, b, c, d] = tail.slice(1, 5).map(Number);
  return `${address.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}${tail[5] ?? ''}`;
}

/** The IPv4 address an IPv4-mapped or NAT64 address reaches; undefined for every other address. */
function embeddedIPv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.kind() === 'ipv4') return undefined;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(NAT64)) {
    const bytes = v6.toByteArray();
    return new ipaddr.IPv4(bytes.slice(12));
  }
  return undefined;
}
