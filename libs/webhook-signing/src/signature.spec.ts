import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { computeHmacSignature, computeStandardWebhookSignature, hmacStringToSignPrefix, signRequest } from './index.js';

const SECRET = 'example-secret-do-not-use';
const TIMESTAMP = '2026-11-22T10:55:03Z';
const NOW = new Date('2026-11-22T10:55:03.750Z');
const PATH = '/hooks/v1/offer/response';
const BODY = '{"eventId":"7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f","offerId":"0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b","workerId":"3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20","response":"applied","respondedAt":"2026-11-22T10:55:02.000Z"}';

/** Independent reference: one HMAC over the whole message string, built here rather than by the library. */
function referenceHmacHex(secret: string, message: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(message, 'utf8')).digest('hex');
}

describe('hmac scheme known-answer vectors', () => {
  it('signs Timestamp\\nMETHOD\\npathWithQuery\\nbody with the secret as key', () => {
    const expected = referenceHmacHex(SECRET, `${TIMESTAMP}\nPOST\n${PATH}\n${BODY}`);

    const headers = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', now: NOW });

    expect(headers.Authorization).toBe(`hmac ${expected}`);
  });

  it('matches the worked example published in the README (computed with openssl)', () => {
    // printf '2026-11-22T10:55:03Z\nPOST\n/hooks/v1/offer/response\n{"eventId":"7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f","offerId":"0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b","workerId":"3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20","response":"applied","respondedAt":"2026-11-22T10:55:02.000Z"}' \
    //   | openssl dgst -sha256 -hmac example-secret-do-not-use
    const headers = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', now: NOW });

    expect(headers).toEqual({
      Timestamp: '2026-11-22T10:55:03Z',
      Authorization: 'hmac f1f78e20202debd8bdfeaa3ccfbad458c7052cb35f2f3479073c1e6ac7b84207',
      'webhook-id': '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      'webhook-timestamp': '1795344903',
      'webhook-signature': 'v1,x5F6Y+jsq/ajeWVXrJfXHo5NFQ6+KwJIpOxnvtn9nZg=',
    });
  });

  it('matches the rotation example published in the README', () => {
    const headers = signRequest({
      secrets: [SECRET, 'example-secret-2-do-not-use'],
      method: 'POST',
      pathWithQuery: PATH,
      body: BODY,
      webhookId: '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      now: NOW,
    });

    expect(headers.Authorization).toBe(
      'hmac f1f78e20202debd8bdfeaa3ccfbad458c7052cb35f2f3479073c1e6ac7b84207, ' +
        'hmac 776f98876d64f64de2f552fb455c45f465b7c09e213e23bc064673c9d5676614',
    );
    expect(headers['webhook-signature']).toBe(
      'v1,x5F6Y+jsq/ajeWVXrJfXHo5NFQ6+KwJIpOxnvtn9nZg= v1,hh2hZut9Ghi/SsMTAfCx3G8Uh+invu8FES5wGQt/43o=',
    );
  });

  it('signs an empty body as "" after the final newline', () => {
    const expected = referenceHmacHex(SECRET, `${TIMESTAMP}\nGET\n/hooks/v1/ping\n`);

    expect(computeHmacSignature(SECRET, { timestamp: TIMESTAMP, method: 'GET', pathWithQuery: '/hooks/v1/ping', body: '' })).toBe(expected);
    expect(expected).toBe('bd0b1b992e568d264a0f26eb24cab24ac910835818e962907e2c72304daa5f6a');
  });

  it('upper-cases the method and keeps the path byte-for-byte', () => {
    expect(hmacStringToSignPrefix({ timestamp: TIMESTAMP, method: 'post', pathWithQuery: '/a/b?c=%20d&e' })).toBe(
      `${TIMESTAMP}\nPOST\n/a/b?c=%20d&e\n`,
    );
  });

  it('hashes Buffer bodies as raw bytes, identical to the equivalent UTF-8 string', () => {
    const body = '{"name":"Zoë ✓"}';
    const parts = { timestamp: TIMESTAMP, method: 'POST', pathWithQuery: PATH };

    const fromString = computeHmacSignature(SECRET, { ...parts, body });
    const fromBuffer = computeHmacSignature(SECRET, { ...parts, body: Buffer.from(body, 'utf8') });

    expect(fromBuffer).toBe(fromString);
    expect(fromString).toBe(referenceHmacHex(SECRET, `${TIMESTAMP}\nPOST\n${PATH}\n${body}`));
  });

  it('produces lowercase hex of a 32-byte digest', () => {
    const signature = computeHmacSignature(SECRET, { timestamp: TIMESTAMP, method: 'POST', pathWithQuery: PATH, body: BODY });

    expect(signature).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('standard webhooks signature', () => {
  it('is base64 HMAC-SHA256 over id.timestamp.body keyed by the secret bytes (not base64-decoded)', () => {
    const expected = createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(`7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.1795344903.${BODY}`).digest('base64');

    expect(computeStandardWebhookSignature(SECRET, '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', 1795344903, BODY)).toBe(expected);
  });
});
