import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import webpush from 'web-push';
import { generateTestVapidKeys, TestPushService } from './test-push-service.js';

/** The stand-in against the `web-push` package's own requests (RFC 8291 encryption, RFC 8292 VAPID). */
const vapid = generateTestVapidKeys();
const subject = 'mailto:stand-in@availability.example';
let pushService: TestPushService;

beforeAll(async () => {
  pushService = await TestPushService.start({ applicationServerKey: vapid.publicKey });
});

afterAll(async () => {
  await pushService?.stop();
});

async function send(subscription: webpush.PushSubscription, payload: string, options: { keys?: { publicKey: string; privateKey: string }; headers?: Record<string, string | undefined> } = {}) {
  const keys = options.keys ?? vapid;
  const details = webpush.generateRequestDetails(subscription, payload, {
    vapidDetails: { subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
    TTL: 60,
    urgency: 'high',
    topic: 'offer-1',
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...details.headers, ...options.headers })) if (value !== undefined) headers[name] = String(value);
  const response = await fetch(subscription.endpoint, { method: 'POST', headers, body: details.body ?? undefined });
  return { status: response.status, text: await response.text(), location: response.headers.get('location') };
}

describe('test push service', () => {
  it('accepts a VAPID-signed aes128gcm push and records it decrypted', async () => {
    const subscription = pushService.subscribe();
    expect(Buffer.from(subscription.keys.p256dh, 'base64url')).toHaveLength(65);
    expect(Buffer.from(subscription.keys.auth, 'base64url')).toHaveLength(16);
    const answer = await send(subscription, JSON.stringify({ hello: 'worker' }));
    expect(answer.status).toBe(201);
    expect(answer.location).toMatch(/\/messages\//);
    const [received] = pushService.received(subscription.endpoint);
    expect(JSON.parse(received.payload)).toEqual({ hello: 'worker' });
    expect(received).toMatchObject({ ttl: 60, urgency: 'high', topic: 'offer-1', vapid: { aud: pushService.url, sub: subject } });
  });

  it('refuses another application server key, a forged signature, no TTL and another encoding', async () => {
    const subscription = pushService.subscribe();
    const other = generateTestVapidKeys();
    expect((await send(subscription, 'x', { keys: other })).status).toBe(403);

    const details = webpush.generateRequestDetails(subscription, 'x', { vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey } });
    const authorization = String(details.headers.Authorization);
    const forged = authorization.replace(/t=([^.]+)\.([^.]+)\./, (_, h: string) => `t=${h}.${Buffer.from(JSON.stringify({ aud: pushService.url, exp: Math.floor(Date.now() / 1000) + 60, sub: 'mailto:evil@example.com' })).toString('base64url')}.`);
    expect((await send(subscription, 'x', { headers: { Authorization: forged } })).status).toBe(403);
    expect((await send(subscription, 'x', { headers: { Authorization: undefined } })).status).toBe(401);
    expect((await send(subscription, 'x', { headers: { TTL: undefined } })).status).toBe(400);
    expect((await send(subscription, 'x', { headers: { 'Content-Encoding': 'aesgcm' } })).status).toBe(415);
    expect(pushService.received(subscription.endpoint)).toEqual([]);
    expect(pushService.refused(subscription.endpoint).map((r) => r.status)).toEqual([403, 403, 401, 400, 415]);
  });

  it('refuses a payload encrypted for another subscription', async () => {
    const subscription = pushService.subscribe();
    const someoneElse = pushService.subscribe();
    const answer = await send({ endpoint: subscription.endpoint, keys: someoneElse.keys }, 'not for you');
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/does not decrypt/);
  });

  it('answers configured failures, then 410 once told the subscription is gone', async () => {
    const subscription = pushService.subscribe();
    pushService.failNext(subscription.endpoint, { status: 503, retryAfter: '1' });
    expect((await send(subscription, 'one')).status).toBe(503);
    expect((await send(subscription, 'two')).status).toBe(201);
    pushService.gone(subscription.endpoint);
    expect((await send(subscription, 'three')).status).toBe(410);
    expect(pushService.received(subscription.endpoint).map((r) => r.payload)).toEqual(['two']);
    expect((await fetch(`${pushService.url}/push/unknown`, { method: 'POST' })).status).toBe(404);
  });
});
