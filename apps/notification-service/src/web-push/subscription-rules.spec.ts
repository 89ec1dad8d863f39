import { createECDH, randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { authProblem, endpointProblem, expirationTimeProblem, MAX_ENDPOINT_LENGTH, p256dhProblem, subscriptionProblems } from './subscription-rules.js';

const strict = { allowLoopback: false };
const loopback = { allowLoopback: true };

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
    expect(endpointProblem('http://push.example.com/x', strict)).toMatch(/https/);
    expect(endpointProblem('ftp://push.example.com/x', strict)).toMatch(/https/);
    expect(endpointProblem('https://user:pw@push.example.com/x', strict)).toMatch(/credentials/);
    expect(endpointProblem('https://push.example.com/x#y', strict)).toMatch(/fragment/);
    expect(endpointProblem('https://push.example.com/a b', strict)).toMatch(/printable/);
    expect(endpointProblem('not a url', strict)).toBeDefined();
    expect(endpointProblem('/relative/path', strict)).toMatch(/absolute/);
    const long = `https://push.example.com/${'a'.repeat(MAX_ENDPOINT_LENGTH)}`;
    expect(endpointProblem(long, strict)).toMatch(/at most 1024/);
    expect(endpointProblem(long.slice(0, MAX_ENDPOINT_LENGTH), strict)).toBeUndefined();
  });

  it('refuses loopback, private and reserved addresses written in the URL; loopback only when the setting allows it', () => {
    for (const endpoint of ['https://127.0.0.1/push', 'https://[::1]/push', 'https://localhost/push', 'http://127.0.0.1:4000/push']) {
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

  it('names every field at fault at once', () => {
    const errors = subscriptionProblems({ endpoint: 'http://push.example.com/', keys: { p256dh: 'AAAA', auth: 'AAAA' }, expirationTime: 1 }, strict);
    expect(Object.keys(errors).sort()).toEqual(['endpoint', 'expirationTime', 'keys.auth', 'keys.p256dh']);
    expect(subscriptionProblems({ endpoint: 'https://push.example.com/x', keys: browserKeys() }, strict)).toEqual({});
  });
});
