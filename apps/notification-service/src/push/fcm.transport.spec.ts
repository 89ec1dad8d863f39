import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type App, deleteApp, initializeApp } from 'firebase-admin/app';
import { getMessaging, type Messaging, MessagingClientErrorCode, type TokenMessage } from 'firebase-admin/messaging';
import { classifyFcmError } from './fcm-errors.js';
import { toFcmMessage } from './fcm-message.js';
import { FcmPushTransport, serviceAccountCredential } from './fcm.transport.js';
import { notificationContent } from './notification-content.js';
import type { PushKind, PushMessage } from './push-transport.js';

/**
 * The FCM transport against firebase-admin's real `Messaging`: its own validation and wire
 * transformation of our messages, and its own mapping of FCM's HTTP error bodies to error codes.
 * Only the HTTP client under it is replaced (FCM is not reachable from here), so nothing leaves the process.
 */
interface FakeResponse {
  status: number;
  headers: Record<string, string>;
  data: unknown;
  text: string;
  isJson(): boolean;
}

const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';

function fcmError(status: number, canonical: string, message: string, errorCode?: string): FakeResponse {
  const data = { error: { code: status, message, status: canonical, details: errorCode ? [{ '@type': FCM_ERROR_TYPE, errorCode }] : [] } };
  return { status, headers: {}, data, text: JSON.stringify(data), isJson: () => true };
}

/** FCM's answer per token; anything not listed succeeds. */
const answers: Record<string, FakeResponse> = {
  'tok-unregistered': fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'),
  'tok-invalid': fcmError(400, 'INVALID_ARGUMENT', 'The registration token is not a valid FCM registration token', 'INVALID_ARGUMENT'),
  'tok-bad-payload': fcmError(400, 'INVALID_ARGUMENT', 'Invalid value at \'message.data[0].value\'', 'INVALID_ARGUMENT'),
  'tok-quota': fcmError(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded for quota metric', 'QUOTA_EXCEEDED'),
  'tok-unavailable': fcmError(503, 'UNAVAILABLE', 'The service is currently unavailable.', 'UNAVAILABLE'),
  'tok-internal': fcmError(500, 'INTERNAL', 'Internal error encountered.', 'INTERNAL'),
  'tok-sender': fcmError(403, 'PERMISSION_DENIED', 'SenderId mismatch', 'SENDER_ID_MISMATCH'),
  'tok-apns': fcmError(401, 'UNAUTHENTICATED', 'Auth error from APNS or Web Push Service', 'THIRD_PARTY_AUTH_ERROR'),
};

let app: App;
let messaging: Messaging;
const sent: Array<{ url: string; message: Record<string, unknown> }> = [];

beforeAll(() => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const { projectId, credential } = serviceAccountCredential(
    JSON.stringify({ type: 'service_account', project_id: 'availability-test', client_email: 'push@availability-test.iam.gserviceaccount.com', private_key: privateKey }),
  );
  app = initializeApp({ credential, projectId }, 'fcm-transport-spec');
  messaging = getMessaging(app);
  messaging.enableLegacyHttpTransport(); // one request per message through httpClient.send, which we replace
  const internals = messaging as unknown as { messagingRequestHandler: { httpClient: { send(request: { url: string; data: { message: Record<string, unknown> } }): Promise<FakeResponse> } } };
  internals.messagingRequestHandler.httpClient.send = async (request) => {
    sent.push({ url: request.url, message: request.data.message });
    const token = request.data.message.token as string;
    const name = `projects/availability-test/messages/${token}`;
    return answers[token] ?? { status: 200, headers: {}, data: { name }, text: JSON.stringify({ name }), isJson: () => true };
  };
});

afterAll(async () => {
  await deleteApp(app);
});

function push(kind: PushKind, token: string, platform: 'ios' | 'android' = 'android'): PushMessage {
  const offer = { offerId: '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21', organisationId: '0b6f1b7e-8a3e-4a57-9b0b-1d2e3f4a5b6c', title: 'Night pickers' };
  const content = notificationContent(kind, offer, 'a3c1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b');
  return {
    token,
    platform,
    deviceId: '11111111-2222-4333-8444-555555555555',
    workerId: 'worker-1',
    eventId: 'a3c1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
    kind,
    offerId: offer.offerId,
    organisationId: offer.organisationId,
    title: content.title,
    body: content.body,
    data: content.data,
  };
}

describe('toFcmMessage (firebase-admin TokenMessage)', () => {
  const now = new Date('2030-01-01T00:00:00Z');

  it('maps each kind to a visible notification with string data, high priority, TTL and a collapse key per offer', () => {
    const message: TokenMessage = toFcmMessage(push('offer.created', 'tok-a'), { ttlSeconds: 3600, now });
    expect(message).toEqual({
      token: 'tok-a',
      notification: { title: 'New offer of work', body: '“Night pickers”: tap to apply or reject.' },
      data: {
        kind: 'offer.created',
        offerId: '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21',
        organisationId: '0b6f1b7e-8a3e-4a57-9b0b-1d2e3f4a5b6c',
        eventId: 'a3c1e2f4-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
        stage: 'created',
        stageOrder: '1',
      },
      android: {
        priority: 'high',
        ttl: 3_600_000,
        collapseKey: '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21',
        notification: { channelId: 'offers', tag: '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21', sound: 'default' },
      },
      apns: {
        headers: {
          'apns-priority': '10',
          'apns-push-type': 'alert',
          'apns-collapse-id': '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21',
          'apns-expiration': String(Date.parse('2030-01-01T01:00:00Z') / 1000),
        },
        payload: { aps: { alert: { title: 'New offer of work', body: '“Night pickers”: tap to apply or reject.' }, sound: 'default', threadId: '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21' } },
      },
    });
    for (const kind of ['offer.successful', 'offer.unsuccessful', 'offer.withdrawn'] as const) {
      const mapped = toFcmMessage(push(kind, 'tok-a'), { ttlSeconds: 60, now });
      expect(mapped.data?.kind).toBe(kind);
      expect(mapped.notification?.body).toContain('Night pickers');
      // APNs allows at most 64 bytes of collapse id.
      expect(Buffer.byteLength(mapped.apns?.headers?.['apns-collapse-id'] ?? '')).toBeLessThanOrEqual(64);
      // One key for all of an offer's pushes: the final one replaces the offer's on the device.
      expect(mapped.android?.collapseKey).toBe('6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21');
      expect(mapped.data).toMatchObject({ stage: 'final', stageOrder: '3' });
    }
    expect(toFcmMessage(push('offer.successful', 'x'), { ttlSeconds: 60, now }).notification?.title).toBe('You got the work');
    expect(toFcmMessage(push('offer.unsuccessful', 'x'), { ttlSeconds: 60, now }).notification?.title).toBe('Offer filled');
    expect(toFcmMessage(push('offer.withdrawn', 'x'), { ttlSeconds: 60, now }).notification?.title).toBe('Offer withdrawn');
  });

  it('passes firebase-admin’s own validation and reaches the wire in FCM v1 form', async () => {
    sent.length = 0;
    const transport = new FcmPushTransport(messaging, 86_400);
    const results = await transport.sendEach([push('offer.created', 'tok-wire-android'), push('offer.withdrawn', 'tok-wire-ios', 'ios')]);
    expect(results).toEqual([
      { success: true, messageId: 'projects/availability-test/messages/tok-wire-android' },
      { success: true, messageId: 'projects/availability-test/messages/tok-wire-ios' },
    ]);
    expect(sent).toHaveLength(2);
    expect(sent[0].url).toBe('https://fcm.googleapis.com/v1/projects/availability-test/messages:send');
    const wire = sent[0].message as { android: Record<string, unknown>; apns: { headers: Record<string, string>; payload: { aps: Record<string, unknown> } }; data: Record<string, string> };
    expect(wire.android).toEqual({
      priority: 'high',
      ttl: '86400s',
      collapse_key: '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21',
      notification: { channel_id: 'offers', tag: '6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21', sound: 'default' },
    });
    expect(wire.apns.headers['apns-push-type']).toBe('alert');
    expect(wire.apns.payload.aps['thread-id']).toBe('6f1d3c3e-1b7a-4a53-9a57-3c4d1f0e9b21');
    expect(Object.values(wire.data).every((value) => typeof value === 'string')).toBe(true);
  });

  it('refuses more than 500 messages per call, as sendEach does', async () => {
    const transport = new FcmPushTransport(messaging, 60);
    await expect(transport.sendEach(Array.from({ length: 501 }, (_, i) => push('offer.created', `t${i}`)))).rejects.toThrow(/500/);
  });
});

describe('FCM error classification (firebase-admin error codes)', () => {
  it('maps FCM HTTP errors, through firebase-admin, to remove-token / retry / fail', async () => {
    const tokens = Object.keys(answers);
    const transport = new FcmPushTransport(messaging, 60);
    const results = await transport.sendEach([...tokens, 'tok-ok'].map((token) => push('offer.created', token)));
    const outcome = Object.fromEntries(
      [...tokens, 'tok-ok'].map((token, i) => [token, { code: results[i].errorCode, action: results[i].success ? 'sent' : classifyFcmError(results[i].errorCode, results[i].errorMessage) }]),
    );
    expect(outcome).toEqual({
      'tok-unregistered': { code: 'messaging/registration-token-not-registered', action: 'remove-token' },
      'tok-invalid': { code: 'messaging/invalid-argument', action: 'remove-token' },
      'tok-bad-payload': { code: 'messaging/invalid-argument', action: 'fail' },
      'tok-quota': { code: 'messaging/message-rate-exceeded', action: 'retry' },
      'tok-unavailable': { code: 'messaging/server-unavailable', action: 'retry' },
      'tok-internal': { code: 'messaging/internal-error', action: 'retry' },
      'tok-sender': { code: 'messaging/mismatched-credential', action: 'fail' },
      'tok-apns': { code: 'messaging/third-party-auth-error', action: 'fail' },
      'tok-ok': { code: undefined, action: 'sent' },
    });
  });

  it('classifies firebase-admin’s client error codes, prefixed or not', () => {
    const prefixed = (code: string) => `messaging/${code}`;
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.REGISTRATION_TOKEN_NOT_REGISTERED.code))).toBe('remove-token');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.INVALID_REGISTRATION_TOKEN.code))).toBe('remove-token');
    expect(classifyFcmError(MessagingClientErrorCode.INVALID_REGISTRATION_TOKEN.code)).toBe('remove-token');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.INVALID_ARGUMENT.code), 'The registration token is not a valid FCM registration token')).toBe('remove-token');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.INVALID_ARGUMENT.code), 'Invalid JSON payload')).toBe('fail');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.MESSAGE_RATE_EXCEEDED.code))).toBe('retry');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.SERVER_UNAVAILABLE.code))).toBe('retry');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.INTERNAL_ERROR.code))).toBe('retry');
    expect(classifyFcmError('messaging/too-many-requests')).toBe('retry');
    expect(classifyFcmError('messaging/unavailable')).toBe('retry');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.PAYLOAD_SIZE_LIMIT_EXCEEDED.code))).toBe('fail');
    expect(classifyFcmError(prefixed(MessagingClientErrorCode.UNKNOWN_ERROR.code))).toBe('fail');
    expect(classifyFcmError(undefined)).toBe('fail');
  });
});
