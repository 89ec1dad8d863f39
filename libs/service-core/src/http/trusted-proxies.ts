import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';

/**
 * TRUST_PROXY: the proxies in front of a service whose `X-Forwarded-For` it believes, as a list of
 * addresses and CIDR ranges. Nothing else is accepted: no names for whole classes of addresses
 * (`loopback`, `uniquelocal`: on a shared machine or network, clients connect from those too and
 * would choose the address they are counted as), no range of every address, nothing unparsed.
 */
export function trustedProxyProblem(setting: string): string | undefined {
  for (const entry of proxyEntries(setting)) {
    const [address, prefix, extra] = entry.split('/');
    if (extra !== undefined || !isPlainAddress(address)) return `"${entry.slice(0, 60)}" is not an address or CIDR range`;
    if (prefix === undefined) continue;
    const bits = ipaddr.parse(address).kind() === 'ipv4' ? 32 : 128;
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return `"${entry.slice(0, 60)}" has no valid prefix length`;
    if (Number(prefix) === 0) return `"${entry}" would trust every address`;
  }
  return undefined;
}

/** The entries Fastify's trustProxy is given (it matches them with ipaddr.js), or undefined to trust none. */
export function trustedProxies(setting: string): string[] | undefined {
  const entries = proxyEntries(setting);
  return entries.length > 0 ? entries : undefined;
}

function proxyEntries(setting: string): string[] {
  return setting
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Dotted-quad IPv4 or IPv6, without the shorthand forms (`127.1`, `0x7f.0.0.1`) or zone ids ipaddr.js would also read. */
function isPlainAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || (ipaddr.IPv6.isValid(text) && !text.includes('%'));
}

/**
 * The client a per-address limit counts: the address a trusted proxy named (request.ip), else the
 * connection's. IPv4-mapped IPv6 is read as the IPv4 address, and an IPv6 client by its /64, the
 * block one subscriber is given, so a client cannot take a new budget with each of its addresses.
 * A proxy naming something that is not an address is not believed.
 */
export function clientAddressKey(request: FastifyRequest): string {
  const named = request.ip;
  const address = ipaddr.isValid(named) ? named : request.raw.socket?.remoteAddress;
  if (address === undefined || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const bytes = (parsed as ipaddr.IPv6).toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...bytes, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
}
