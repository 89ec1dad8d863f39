import { BlockList, isIP } from 'node:net';

/**
 * Which resolved addresses the platform may call. Integrators give us URLs; without this check a
 * URL could point our servers at their own network (SSRF). Loopback and private ranges are opened
 * only by configuration (development and tests call services on loopback).
 */
export interface AddressPolicy {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

export const STRICT_POLICY: AddressPolicy = { allowLoopback: false, allowPrivate: false };

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const privateRanges = new BlockList();
for (const [net, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10], // carrier-grade NAT
] as const) {
  privateRanges.addSubnet(net, prefix, 'ipv4');
}
privateRanges.addSubnet('fc00::', 7, 'ipv6'); // unique local

/** Never reachable on purpose: link-local (cloud metadata at 169.254.169.254), unspecified, multicast, reserved. */
const alwaysForbidden = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['192.0.0.0', 24],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  alwaysForbidden.addSubnet(net, prefix, 'ipv4');
}
alwaysForbidden.addSubnet('fe80::', 10, 'ipv6');
alwaysForbidden.addSubnet('ff00::', 8, 'ipv6');
alwaysForbidden.addAddress('::', 'ipv6');

/** IPv4 written inside IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Why an address may not be called under the policy, or undefined when it may. */
export function forbiddenReason(rawAddress: string, policy: AddressPolicy): string | undefined {
  if (isIP(rawAddress) === 0) return 'not an IP address';
  const { address, family } = normalise(rawAddress);
  if (alwaysForbidden.check(address, family)) return `${address} is a link-local, multicast or reserved address`;
  if (loopback.check(address, family) && !policy.allowLoopback) return `${address} is a loopback address`;
  if (privateRanges.check(address, family) && !policy.allowPrivate) return `${address} is a private network address`;
  return undefined;
}
