import { BlockList } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type AddressPolicy, forbiddenReason, STRICT_POLICY } from './address-policy.js';

const OPEN: AddressPolicy = { allowLoopback: true, allowPrivate: true };
const LOOPBACK_ONLY: AddressPolicy = { allowLoopback: true, allowPrivate: false };
const PRIVATE_ONLY: AddressPolicy = { allowLoopback: false, allowPrivate: true };

// The oracle: the ranges written out here from the RFCs, independent of the library the policy uses.
const V4_ALWAYS: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['169.254.0.0', 16],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const V4_LOOPBACK: Array<[string, number]> = [['127.0.0.0', 8]];
const V4_PRIVATE: Array<[string, number]> = [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
];
const V6_ALWAYS: Array<[string, number]> = [
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['fec0::', 10], // site-local (deprecated)
  ['2002::', 16], // 6to4
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, AMT, ...
  ['2001:db8::', 32], // documentation
  ['2620:4f:8000::', 48], // AS112
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing
  ['100::', 64], // discard
  ['64:ff9b:1::', 48], // local-use NAT64
];
const V6_PRIVATE: Array<[string, number]> = [['fc00::', 7]];

function blockList(v4: Array<[string, number]>, v6: Array<[string, number]>): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}
const SPECIAL_V4 = blockList([...V4_ALWAYS, ...V4_LOOPBACK, ...V4_PRIVATE], []);
const SPECIAL_V6 = blockList([], [...V6_ALWAYS, ...V6_PRIVATE]);

const v4ToInt = (address: string) => address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
const intToV4 = (value: number) => [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
const v6ToBig = (address: string) => {
  const [head, tail = ''] = address.split('::');
  const groups = (part: string) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = address.includes('::') ? [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)] : groups(head);
  return all.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n);
};
/** Full spelling, eight groups with leading zeros: no compression shortcuts for the parser. */
const bigToV6 = (value: bigint) =>
  Array.from({ length: 8 }, (_, i) => ((value >> BigInt(16 * (7 - i))) & 0xffffn).toString(16).padStart(4, '0')).join(':');

const v4In = ([net, prefix]: [string, number]) =>
  fc.integer({ min: 0, max: 2 ** (32 - prefix) - 1 }).map((offset) => intToV4(v4ToInt(net) + offset));
const v6In = ([net, prefix]: [string, number]) =>
  fc.bigInt({ min: 0n, max: (1n << BigInt(128 - prefix)) - 1n }).map((offset) => bigToV6(v6ToBig(net) | offset));
const anyV4 = fc.integer({ min: 0, max: 2 ** 32 - 1 }).map(intToV4);
const publicV4 = anyV4.filter((address) => !SPECIAL_V4.check(address, 'ipv4'));

/** Ways IPv6 can carry an IPv4 address that the network delivers to that IPv4 address. */
const deliveredSpellings = (v4: string): string[] => {
  const hex = v4ToInt(v4).toString(16).padStart(8, '0');
  const low = `${hex.slice(0, 4)}:${hex.slice(4)}`;
  return [`::ffff:${v4}`, `::FFFF:${low}`, `0:0:0:0:0:ffff:${low}`, `64:ff9b::${v4}`, `64:ff9b::${low}`];
};
/** Ways IPv6 carries an IPv4 address through a tunnel or a deprecated form: refused, whatever the address. */
const tunnelSpellings = (v4: string): string[] => {
  const hex = v4ToInt(v4).toString(16).padStart(8, '0');
  const low = `${hex.slice(0, 4)}:${hex.slice(4)}`;
  return [`2002:${low}::1`, `::${v4}`, `::ffff:0:${v4}`, `2001:0:${low}::1`];
};
/** `::0.0.0.1` is ::1 itself, loopback, which the open policy allows. */
const refusedThroughTunnels = (v4: string) => {
  for (const spelling of tunnelSpellings(v4)) expect(forbiddenReason(spelling, v4 === '0.0.0.1' ? STRICT_POLICY : OPEN)).toBeDefined();
};

describe('forbiddenReason: the ranges named in the policy', () => {
  it.each([
    ['169.254.169.254', STRICT_POLICY, 'link-local'],
    ['127.0.0.1', STRICT_POLICY, 'loopback'],
    ['::1', STRICT_POLICY, 'loopback'],
    ['10.1.2.3', STRICT_POLICY, 'private'],
    ['172.20.0.1', STRICT_POLICY, 'private'],
    ['192.168.1.1', STRICT_POLICY, 'private'],
    ['100.64.0.1', STRICT_POLICY, 'private'],
    ['::ffff:10.0.0.1', STRICT_POLICY, 'private'],
    ['fd00::1', STRICT_POLICY, 'private'],
    ['fe80::1', OPEN, 'link-local'],
    ['fe80::1%eth0', OPEN, 'link-local'],
    ['0.0.0.0', OPEN, 'reserved'],
    ['::', OPEN, 'reserved'],
    ['255.255.255.255', OPEN, 'broadcast'],
    ['224.0.0.1', OPEN, 'multicast'],
    ['ff02::1', OPEN, 'multicast'],
    ['198.18.0.1', OPEN, 'reserved'],
    // NAT64 64:ff9b::/96: judged as the IPv4 address the gateway forwards to.
    ['64:ff9b::127.0.0.1', STRICT_POLICY, 'loopback'],
    ['64:ff9b::a00:1', STRICT_POLICY, 'private'],
    ['64:ff9b::169.254.169.254', OPEN, 'link-local'],
    // IPv4-compatible ::/96 (deprecated): refused whatever it carries.
    ['::8.8.8.8', OPEN, 'reserved'],
    ['::10.0.0.1', OPEN, 'reserved'],
    ['::7f00:1', OPEN, 'reserved'],
    ['::127.0.0.1', OPEN, 'reserved'],
    ['fe80::10.0.0.1%eth0', OPEN, 'link-local'],
    // 6to4 2002::/16: refused whatever it carries.
    ['2002:808:808::1', OPEN, '6to4'],
    ['2002:c0a8:101::1', OPEN, '6to4'],
    // Site-local fec0::/10 (deprecated).
    ['fec0::1', OPEN, 'site-local'],
    ['feff:ffff::1', OPEN, 'site-local'],
    ['2001::1', OPEN, 'Teredo'],
    ['2001:db8::1', OPEN, 'reserved'],
    ['2001:2::1', OPEN, 'reserved'],
  ])('refuses %s', (address, policy, words) => {
    expect(forbiddenReason(address, policy)).toContain(words);
  });

  it.each([['93.184.216.34'], ['8.8.8.8'], ['2606:4700::1111'], ['2a00:1450:4001:80b::200e'], ['::ffff:8.8.8.8'], ['64:ff9b::8.8.8.8'], ['64:ff9b::808:808']])(
    'allows public %s',
    (address) => {
      expect(forbiddenReason(address, STRICT_POLICY)).toBeUndefined();
    },
  );

  it('names the IPv4 address an IPv6 spelling reaches', () => {
    expect(forbiddenReason('::ffff:a00:1', STRICT_POLICY)).toBe('::ffff:a00:1 (IPv4 10.0.0.1) is a private network address');
  });

  it('opens loopback and private ranges only when configured', () => {
    expect(forbiddenReason('127.0.0.1', LOOPBACK_ONLY)).toBeUndefined();
    expect(forbiddenReason('10.0.0.1', LOOPBACK_ONLY)).toContain('private');
    expect(forbiddenReason('10.0.0.1', PRIVATE_ONLY)).toBeUndefined();
    expect(forbiddenReason('127.0.0.1', PRIVATE_ONLY)).toContain('loopback');
  });

  it.each([['localhost'], ['127.1'], ['010.0.0.1'], ['2130706433'], ['']])('does not read %j as an address', (text) => {
    expect(forbiddenReason(text, OPEN)).toBe('not an IP address');
  });
});

describe('forbiddenReason: generated addresses', () => {
  it.each(V4_ALWAYS)('refuses every address in %s/%i, in IPv4 and in every IPv6 spelling, under any policy', (net, prefix) => {
    fc.assert(
      fc.property(v4In([net, prefix]), (address) => {
        for (const spelling of [address, ...deliveredSpellings(address)]) expect(forbiddenReason(spelling, OPEN)).toBeDefined();
        refusedThroughTunnels(address);
      }),
    );
  });

  it.each(V4_LOOPBACK)('refuses %s/%i (and its IPv6 spellings) unless loopback is allowed', (net, prefix) => {
    fc.assert(
      fc.property(v4In([net, prefix]), (address) => {
        for (const spelling of [address, ...deliveredSpellings(address)]) {
          expect(forbiddenReason(spelling, STRICT_POLICY)).toContain('loopback');
          expect(forbiddenReason(spelling, PRIVATE_ONLY)).toContain('loopback');
          expect(forbiddenReason(spelling, LOOPBACK_ONLY)).toBeUndefined();
        }
        refusedThroughTunnels(address);
      }),
    );
  });

  it.each(V4_PRIVATE)('refuses %s/%i (and its IPv6 spellings) unless private networks are allowed', (net, prefix) => {
    fc.assert(
      fc.property(v4In([net, prefix]), (address) => {
        for (const spelling of [address, ...deliveredSpellings(address)]) {
          expect(forbiddenReason(spelling, LOOPBACK_ONLY)).toContain('private');
          expect(forbiddenReason(spelling, PRIVATE_ONLY)).toBeUndefined();
        }
        refusedThroughTunnels(address);
      }),
    );
  });

  it('allows public IPv4 addresses, also mapped or through NAT64, and refuses them through tunnels', () => {
    fc.assert(
      fc.property(publicV4, (address) => {
        for (const spelling of [address, ...deliveredSpellings(address)]) expect(forbiddenReason(spelling, STRICT_POLICY)).toBeUndefined();
        refusedThroughTunnels(address);
      }),
    );
  });

  it.each(V6_ALWAYS)('refuses every address in %s/%i under any policy', (net, prefix) => {
    fc.assert(fc.property(v6In([net, prefix]), (address) => void expect(forbiddenReason(address, OPEN)).toBeDefined()));
  });

  it('refuses unique local fc00::/7 unless private networks are allowed', () => {
    fc.assert(
      fc.property(v6In(['fc00::', 7]), (address) => {
        expect(forbiddenReason(address, LOOPBACK_ONLY)).toContain('private');
        expect(forbiddenReason(address, PRIVATE_ONLY)).toBeUndefined();
      }),
    );
  });

  it('allows global unicast IPv6 outside the special ranges', () => {
    const publicV6 = v6In(['2000::', 3]).filter((address) => !SPECIAL_V6.check(address, 'ipv6'));
    fc.assert(fc.property(publicV6, (address) => void expect(forbiddenReason(address, STRICT_POLICY)).toBeUndefined()));
  });

  it('refuses IPv6 outside global unicast that is not loopback, unique local, mapped or NAT64', () => {
    const opened = blockList([], [['2000::', 3], ['fc00::', 7], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['::1', 128]]);
    const elsewhere = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map(bigToV6).filter((address) => !opened.check(address, 'ipv6'));
    fc.assert(fc.property(elsewhere, (address) => void expect(forbiddenReason(address, OPEN)).toBeDefined()));
  });

  it('opening a range never refuses more: what the strict policy allows, every policy allows', () => {
    const anyAddress = fc.oneof(anyV4, fc.ipV6(), publicV4.map((address) => `::ffff:${address}`));
    fc.assert(
      fc.property(anyAddress, (address) => {
        if (forbiddenReason(address, OPEN) !== undefined) expect(forbiddenReason(address, STRICT_POLICY)).toBeDefined();
        if (forbiddenReason(address, STRICT_POLICY) === undefined) {
          for (const policy of [OPEN, LOOPBACK_ONLY, PRIVATE_ONLY]) expect(forbiddenReason(address, policy)).toBeUndefined();
        }
      }),
    );
  });
});
