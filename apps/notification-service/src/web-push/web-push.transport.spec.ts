import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OutboundClient, type OutboundRequest, OutboundRequestError, type OutboundResponse } from '@availability/outbound-http';
import { generateTestVapidKeys, TestPushService } from '@availability/testing';
import { notificationContent } from '../push/notification-content.js';
import type { PushKind, PushMessage } from '../push/push-transport.js';
import { endpointProblem } from './subscription-rules.js';
import { classifyWebPushError } from './web-push-errors.js';
import { WebPushTransport, webPushTopic } from './web-push.transport.js';

const keys = generateTestVapidKeys();
const vapid = { publicKey: keys.publicKey, privateKey: keys.privateKey, subject: 'mailto:ops@availability.example' };
const offer = { offerId: '5b0f1a52-7c55-4e4a-9d7e-2d1c7b8e9f01', organisationId: '0c6ad2e4-7b0e-4a38-a1f5-9a3b8f2c1d00', title: 'Night pickers' };

function message(subscription: { endpoint: string; keys: { p256dh: string; auth: string } }, kind: PushKind = 'offer.created'): PushMessage {
  const content = notificationContent(kind, offer, 'e7b1c7a0-0000-4000-8000-000000000001');
  return {
    token: subscription.endpoint,
    platform: 'web',
    deviceId: '9d2b4c1e-0000-4000-8000-000000000001',
    workerId: 'worker-1',
    eventId: 'e7b1c7a0-0000-4000-8000-000000000001',
    kind,
    offerId: offer.offerId,
    organisationId: offer.organisationId,
    title: content.title,
    body: content.body,
    data: content.data,
    webPushKeys: subscription.keys,
  };
}

describe('Web Push transport against a push service on loopback', () => {
  let pushService: TestPushService;
  let client: OutboundClient;
  let transport: WebPushTransport;

  beforeAll(async () => {
    pushService = await TestPushService.start({ applicationServerKey: vapid.publicKey });
    client = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: false } });
    transport = new WebPushTransport(client, { vapid, ttlSeconds: 3600, timeoutMs: 5_000 });
  });

  afterAll(async () => {
    await transport?.close();
    await pushService?.stop();
  });

  it('delivers an encrypted, VAPID-signed payload the push service decrypts: kind, offerId, title, body, stage', async () => {
    const subscription = pushService.subscribe();
    const [result] = await transport.sendEach([message(subscription)]);
    expect(result).toMatchObject({ success: true, messageId: expect.stringMatching(/\/messages\//) });
    const [received] = pushService.received(subscription.endpoint);
    expect(JSON.parse(received.payload)).toEqual({ kind: 'offer.created', offerId: offer.offerId, title: 'New offer of work', body: '“Night pickers”: tap to apply or reject.', stage: 'created', stageOrder: 1 });
    expect(received).toMatchObject({ ttl: 3600, urgency: 'high', topic: webPushTopic(message(subscription)), vapid: { aud: pushService.url, sub: vapid.subject } });
  });

  it('answers each message in order; a gone subscription fails alone with its status', async () => {
    const [a, gone, b] = [pushService.subscribe(), pushService.subscribe(), pushService.subscribe()];
    pushService.gone(gone.endpoint);
    pushService.failNext(b.endpoint, { status: 503, retryAfter: '2' });
    const results = await transport.sendEach([message(a), message(gone, 'offer.withdrawn'), message(b)]);
    expect(results.map((r) => r.success)).toEqual([true, false, false]);
    expect(results[1].errorCode).toBe('web-push/410');
    expect(results[2]).toMatchObject({ errorCode: 'web-push/503', retryAfterMs: 2000 });
  });

  it('never calls a loopback push service when loopback is not allowed', async () => {
    const strict = new WebPushTransport(new OutboundClient({ policy: { allowLoopback: false, allowPrivate: false } }), { vapid, ttlSeconds: 60, timeoutMs: 2_000 });
    const subscription = pushService.subscribe();
    const [result] = await strict.sendEach([message(subscription)]);
    expect(result).toMatchObject({ success: false, errorCode: 'web-push/forbidden-address' });
    expect(pushService.received(subscription.endpoint)).toEqual([]);
    await strict.close();
  });
});

describe('Web Push transport decisions (no network)', () => {
  const subscription = { endpoint: 'https://push.example.com/wpush/abc', keys: { p256dh: '', auth: '' } };
  beforeAll(() => {
    const browser = generateTestVapidKeys(); // any P-256 key does as the browser's
    subscription.keys = { p256dh: browser.publicKey, auth: Buffer.alloc(16, 7).toString('base64url') };
  });

  function stub(answer: (call: OutboundRequest) => Promise<OutboundResponse>) {
    const calls: OutboundRequest[] = [];
    return { calls, client: { send: (call: OutboundRequest) => (calls.push(call), answer(call)) } };
  }
  const ok = async (): Promise<OutboundResponse> => ({ status: 201, headers: {}, body: '', truncated: false, durationMs: 1 });

  it('sends RFC 8030 headers, and signs one VAPID JWT per push service origin for an hour', async () => {
    let now = Date.now();
    const { calls, client } = stub(ok);
    const transport = new WebPushTransport(client, { vapid, ttlSeconds: 86400, timeoutMs: 1_000, now: () => now });
    await transport.sendEach([message(subscription), message(subscription, 'offer.withdrawn')]);
    now += 3600_000 + 1;
    await transport.sendEach([message(subscription)]);
    expect(calls).toHaveLength(3);
    const headers = calls[0].headers ?? {};
    expect(headers).toMatchObject({ TTL: '86400', Urgency: 'high', 'Content-Encoding': 'aes128gcm' });
    expect(headers.Authorization).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${vapid.publicKey}$`));
    expect(headers.Topic).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(calls[1].headers?.Topic).toBe(headers.Topic); // one topic per offer: the later push replaces the earlier
    expect(calls[1].headers?.Authorization).toBe(headers.Authorization);
    expect(calls[2].headers?.Authorization).not.toBe(headers.Authorization);
    expect(calls[0]).toMatchObject({ url: subscription.endpoint, method: 'POST', timeoutMs: 1_000 });
    expect(Buffer.byteLength(calls[0].body as Buffer)).toBeLessThan(400);
  });

  it('turns failures to reach the push service into retryable results, never a thrown batch', async () => {
    const { client } = stub(async () => {
      throw new OutboundRequestError('timeout', 'no answer within 1000 ms');
    });
    const transport = new WebPushTransport(client, { vapid, ttlSeconds: 60, timeoutMs: 1_000 });
    const results = await transport.sendEach([message(subscription), { ...message(subscription), webPushKeys: undefined }]);
    expect(results[0]).toMatchObject({ success: false, errorCode: 'web-push/timeout' });
    expect(results[1]).toMatchObject({ success: false, errorCode: 'web-push/encryption' });
  });

  it('never calls an endpoint the subscription rules refuse, kept from before they changed; such a result deletes nothing', async () => {
    const { calls, client } = stub(ok);
    const rules = { allowLoopback: false, pushServiceHosts: ['fcm.googleapis.com'] };
    const transport = new WebPushTransport(client, { vapid, ttlSeconds: 60, timeoutMs: 1_000, endpointProblem: (endpoint) => endpointProblem(endpoint, rules) });
    const registeredBefore = { ...subscription, endpoint: 'https://fcm.googleapis.com:6379/fcm/send/abc' };
    const allowed = { ...subscription, endpoint: 'https://fcm.googleapis.com/fcm/send/abc' };
    const results = await transport.sendEach([message(registeredBefore), message(subscription), message(allowed)]);
    expect(results.map((result) => result.errorCode)).toEqual(['web-push/endpoint-not-allowed', 'web-push/endpoint-not-allowed', undefined]);
    expect(calls.map((call) => call.url)).toEqual([allowed.endpoint]);
    expect(classifyWebPushError(results[0].errorCode)).toBe('fail');
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const { client } = stub(async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return ok();
    });
    const transport = new WebPushTransport(client, { vapid, ttlSeconds: 60, timeoutMs: 1_000, concurrency: 3 });
    const results = await transport.sendEach(Array.from({ length: 10 }, () => message(subscription)));
    expect(results.every((r) => r.success)).toBe(true);
    expect(most).toBe(3);
  });
});
