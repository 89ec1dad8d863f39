import { describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import fc from 'fast-check';
import { clientAddressKey, trustedProxies, trustedProxyProblem } from './trusted-proxies.js';

const requestFrom = (ip: string, socket = ip) => ({ ip, raw: { socket: { remoteAddress: socket } } }) as unknown as FastifyRequest;

describe('TRUST_PROXY', () => {
  it('takes addresses and CIDR ranges, IPv4 and IPv6, comma-separated', () => {
    for (const setting of ['', ' ', '10.0.0.0/8', '192.0.2.7', '10.0.0.0/8, 192.0.2.7 ,fd00::/8', '::1', '2001:db8::/32', '::ffff:192.0.2.7', '192.0.2.7/32']) {
      expect({ setting, problem: trustedProxyProblem(setting) }).toEqual({ setting, problem: undefined });
    }
    expect(trustedProxies(' 10.0.0.0/8 ,, 192.0.2.7 ')).toEqual(['10.0.0.0/8', '192.0.2.7']);
    expect(trustedProxies(' ')).toBeUndefined();
  });

  it('refuses names of whole classes of addresses, ranges of every address, and anything else', () => {
    for (const setting of [
      'loopback',
      'uniquelocal',
      'linklocal',
      '10.0.0.0/8,loopback',
      '0.0.0.0/0',
      '::/0',
      '10.0.0.0/33',
      '2001:db8::/129',
      '10.0.0.0/8/8',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0.0/255.0.0.0',
      '127.1',
      '0x7f.0.0.1',
      'fe80::1%eth0',
      '::::',
      '10.0.0.0/08x',
      '*',
    ]) {
      expect({ setting, problem: trustedProxyProblem(setting) }).toEqual({ setting, problem: expect.any(String) });
    }
  });

  it('takes every address and range of a valid prefix length but 0', () => {
    const v4 = fc.tuple(fc.ipV4(), fc.option(fc.integer({ min: 1, max: 32 }), { nil: undefined }));
    const v6 = fc.tuple(fc.ipV6(), fc.option(fc.integer({ min: 1, max: 128 }), { nil: undefined }));
    fc.assert(
      fc.property(fc.array(fc.oneof(v4, v6), { minLength: 1, maxLength: 4 }), (entries) => {
        const setting = entries.map(([address, prefix]) => (prefix === undefined ? address : `${address}/${prefix}`)).join(', ');
        expect(trustedProxyProblem(setting)).toBeUndefined();
      }),
    );
  });
});

describe('the client address a per-address limit counts', () => {
  it('is the address request.ip names, IPv4-mapped addresses as IPv4, IPv6 by its /64', () => {
    expect(clientAddressKey(requestFrom('203.0.113.9'))).toBe('203.0.113.9');
    expect(clientAddressKey(requestFrom('::ffff:203.0.113.9'))).toBe('203.0.113.9');
    expect(clientAddressKey(requestFrom('2001:db8:1:2:aaaa:bbbb:cccc:dddd'))).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey(requestFrom('2001:db8:1:2::77'))).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey(requestFrom('2001:db8:1:3::1'))).toBe('2001:db8:1:3::/64');
  });

  it('is the connection’s when a proxy names something that is not an address', () => {
    expect(clientAddressKey(requestFrom('garbage', '10.1.2.3'))).toBe('10.1.2.3');
    expect(clientAddressKey(requestFrom('', '::ffff:10.1.2.3'))).toBe('10.1.2.3');
    expect(clientAddressKey(requestFrom('garbage', ''))).toBe('unknown');
  });
});
