import { createECDH, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  authProblem,
  DEFAULT_PUSH_SERVICE_HOSTS,
  endpointProblem,
  expirationTimeProblem,
  MAX_ENDPOINT_LENGTH,
  p256dhProblem,
  pushServiceHosts,
  subscriptionProblems,
} from './subscription-rules.js';

const hosts = pushServiceHosts(DEFAULT_PUSH_SERVICE_HOSTS);
const strict = { allowLoopback: false, pushServiceHosts: hosts };
const loopback = { allowLoopback: true, pushServiceHosts: hosts };

function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

describe('Web Push subscription rules', () => {
  it('takes the endpoints browsers are given', () => {
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/dpH5lCsTSSM:APA91bHqjZxM0VImWWqDRN7U0a3AycjUf4O',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABh',
      'https://web.push.apple.com/QGuQyavXutnMHJFG3HQ0dHXz',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB',
    ]) {
      expect(endpointProblem(endpoint, strict)).toBeUndefined();
    }
  });

  it('refuses http, other schemes, credentials, fragments, spaces and over-long URLs', () => {
    expect(endpointProblem('http://fcm.googleapis.com/x', strict)).toMatch(/https/);
    expect(endpointProblem('ftp://fcm.googleapis.com/x', strict)).toMatch(/https/);
    expect(endpointProblem('https://user:pw@fcm.googleapis.com/x', strict)).toMatch(/credentials/);
    expect(endpointProblem('https://fcm.googleapis.com/x#y', strict)).toMatch(/fragment/);
    expect(endpointProblem('https://fcm.googleapis.com/a b', strict)).toMatch(/printable/);
    expect(endpointProblem('not a url', strict)).toBeDefined();
    expect(endpointProblem('/relative/path', strict)).toMatch(/absolute/);
    const long = `https://fcm.googleapis.com/${'a'.repeat(MAX_ENDPOINT_LENGTH)}`;
    expect(endpointProblem(long, strict)).toMatch(/at most 1024/);
    expect(endpointProblem(long.slice(0, MAX_ENDPOINT_LENGTH), strict)).toBeUndefined();
  });

  it('takes push services on 443 only: any other port is refused, 443 written out is the same URL', () => {
    expect(endpointProblem('https://fcm.googleapis.com:6379/fcm/send/x', strict)).toMatch(/port 443/);
    expect(endpointProblem('https://updates.push.services.mozilla.com:22/wpush/v2/x', strict)).toMatch(/port 443/);
    expect(endpointProblem('https://fcm.googleapis.com:443/fcm/send/x', strict)).toBeUndefined();
  });

  it('takes only the push services of the allow-list, a wildcard standing for one label', () => {
    for (const endpoint of [
      'https://push.example.com/x',
      'https://fcm.googleapis.com.attacker.example/x',
      'https://xfcm.googleapis.com/x',
      'https://notify.windows.com/w/',
      'https://a.b.notify.windows.com/w/',
      'https://fcm.googleapis.com./x',
      'https://93.184.216.34/x',
    ]) {
      expect([endpoint, endpointProblem(endpoint, strict)]).toEqual([endpoint, expect.stringMatching(/push service/)]);
    }
    const own = { allowLoopback: false, pushServiceHosts: pushServiceHosts('push.example.com, *.push.example.net') };
    expect(endpointProblem('https://push.example.com/x', own)).toBeUndefined();
    expect(endpointProblem('https://eu1.push.example.net/x', own)).toBeUndefined();
    expect(endpointProblem('https://fcm.googleapis.com/x', own)).toMatch(/push service/);
  });

  it('refuses every port but 443 and every host off the list, whatever the URL (property)', () => {
    const listed = fc.oneof(
      fc.constantFrom('fcm.googleapis.com', 'updates.push.services.mozilla.com', 'web.push.apple.com'),
      fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/).map((label) => `${label}.notify.windows.com`),
    );
    const path = fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`));
    const otherPort = fc.integer({ min: 1, max: 65535 }).filter((port) => port !== 443);
    fc.assert(
      fc.property(listed, path, (host, rest) => {
        expect(endpointProblem(`https://${host}${rest}`, strict)).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(listed, otherPort, path, fc.boolean(), (host, port, rest, allowLoopback) => {
        expect(endpointProblem(`https://${host}:${port}${rest}`, { ...strict, allowLoopback })).toMatch(/port 443/);
        expect(endpointProblem(`http://${host}${rest}`, { ...strict, allowLoopback })).toBeDefined();
      }),
    );
    fc.assert(
      fc.property(fc.webAuthority({ withPort: true, withIPv4: true, withIPv6: true }), path, fc.boolean(), (authority, rest, allowLoopback) => {
        const url = `https://${authority}${rest}`;
        const host = URL.canParse(url) ? new URL(url).hostname : '';
        // Arbitrary authorities are off the list, save (by chance) a listed name or loopback when allowed.
        fc.pre(!hosts.includes(host) && !host.endsWith('.notify.windows.com') && !(allowLoopback && ['localhost', '127.0.0.1', '[::1]'].includes(host)));
        expect(endpointProblem(url, { ...strict, allowLoopback })).toBeDefined();
      }),
    );
  });

  it('refuses loopback, private and reserved addresses written in the URL; loopback only when the setting allows it', () => {
    // The test push service (libs/testing) listens on http://127.0.0.1:<any port>.
    for (const endpoint of ['https://127.0.0.1/push', 'https://[::1]/push', 'https://localhost/push', 'http://127.0.0.1:4000/push', 'https://[::1]:8443/push']) {
      expect(endpointProblem(endpoint, strict)).toBeDefined();
      expect(endpointProblem(endpoint, loopback)).toBeUndefined();
    }
    for (const endpoint of ['https://10.0.0.8/push', 'https://192.168.1.1/push', 'https://169.254.169.254/latest', 'https://[fd00::1]/push']) {
      expect(endpointProblem(endpoint, loopback)).toMatch(/public push service/);
    }
    // http stays loopback-only even when allowed.
    expect(endpointProblem('http://push.example.com/x', loopback)).toMatch(/loopback/);
    expect(endpointProblem('http://10.0.0.8/x', loopback)).toMatch(/loopback/);
  });

  it('wants p256dh to be an uncompressed P-256 point and auth 16 bytes, in base64url', () => {
    const { p256dh, auth } = browserKeys();
    expect(p256dhProblem(p256dh)).toBeUndefined();
    expect(p256dhProblem(`${p256dh}=`)).toBeUndefined(); // padded base64url
    expect(authProblem(auth)).toBeUndefined();
    const point = Buffer.from(p256dh, 'base64url');
    // Standard base64 is refused where it differs from base64url (+ or /); about one random key in
    // sixteen spells the same in both, so take one that does not.
    let standard = point.toString('base64');
    while (!/[+/]/.test(standard)) standard = Buffer.from(browserKeys().p256dh, 'base64url').toString('base64');
    expect(p256dhProblem(standard)).toBeDefined();
    expect(p256dhProblem(point.subarray(0, 33).toString('base64url'))).toMatch(/65 bytes/); // compressed
    const offCurve = Buffer.from(point);
    offCurve[64] ^= 1;
    expect(p256dhProblem(offCurve.toString('base64url'))).toMatch(/curve/);
    const notUncompressed = Buffer.from(point);
    notUncompressed[0] = 2;
    expect(p256dhProblem(notUncompressed.toString('base64url'))).toMatch(/65 bytes/);
    expect(p256dhProblem('!!!')).toMatch(/base64url/);
    expect(authProblem(randomBytes(15).toString('base64url'))).toMatch(/16-byte/);
    expect(authProblem(randomBytes(17).toString('base64url'))).toMatch(/16-byte/);
    expect(authProblem('a')).toMatch(/base64url/);
  });

  it('takes no expiry or a future one', () => {
    const now = Date.UTC(2026, 10, 24);
    expect(expirationTimeProblem(null, now)).toBeUndefined();
    expect(expirationTimeProblem(undefined, now)).toBeUndefined();
    expect(expirationTimeProblem(now + 1, now)).toBeUndefined();
    expect(expirationTimeProblem(now, now)).toMatch(/passed/);
    expect(expirationTimeProblem(-1, now)).toBeDefined();
    expect(expirationTimeProblem(2 ** 53, now)).toBeDefined();
    expect(expirationTimeProblem(Date.UTC(2100, 0, 2), now)).toMatch(/2100/);
  });

  it('reads the allow-list setting: host names and *.wildcards, comma-separated, any case', () => {
    expect(pushServiceHosts(DEFAULT_PUSH_SERVICE_HOSTS)).toEqual(['fcm.googleapis.com', 'updates.push.services.mozilla.com', '*.notify.windows.com', 'web.push.apple.com']);
    expect(pushServiceHosts(' Push.Example.com ,*.push.example.net,')).toEqual(['push.example.com', '*.push.example.net']);
    expect(pushServiceHosts('')).toEqual([]);
    expect(endpointProblem('https://fcm.googleapis.com/x', { allowLoopback: false, pushServiceHosts: [] })).toMatch(/push service/);
  });

  it('names every field at fault at once', () => {
    const errors = subscriptionProblems({ endpoint: 'http://push.example.com/', keys: { p256dh: 'AAAA', auth: 'AAAA' }, expirationTime: 1 }, strict);
    expect(Object.keys(errors).sort()).toEqual(['endpoint', 'expirationTime', 'keys.auth', 'keys.p256dh']);
    expect(subscriptionProblems({ endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: browserKeys() }, strict)).toEqual({});
  });
});
