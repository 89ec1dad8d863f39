import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { computeHmacSignature, computeStandardWebhookSignature, hmacStringToSignPrefix, signRequest } from './index.js';

const SECRET = 'example-secret-do-not-use';
const TIMESTAMP = '2026-11-22T10:55:03Z';
const NOW = new Date('2026-11-22T10:55:03.750Z');
const PATH = '/hooks/v1/offer/response?x=1';
const BODY = '{"offerId":"off_123","answer":"accepted"}';

/** Independent reference: one HMAC over the whole message string, built here rather than by the library. */
function referenceHmacHex(secret: string, message: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(message, 'utf8')).digest('hex');
}

describe('hmac scheme known-answer vectors', () => {
  it('signs Timestamp\\nMETHOD\\npathWithQuery\\nbody with the secret as key', () => {
    const expected = referenceHmacHex(SECRET, `${TIMESTAMP}\nPOST\n${PATH}\n${BODY}`);

    const headers = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: 'evt_123', now: NOW });

    expect(headers.Authorization).toBe(`hmac ${expected}`);
  });

  it('matches the worked example published in the README (computed with openssl)', () => {
    // printf '2026-11-22T10:55:03Z\nPOST\n/hooks/v1/offer/response?x=1\n{"offerId":"off_123","answer":"accepted"}' \
    //   | openssl dgst -sha256 -hmac example-secret-do-not-use
    const headers = signRequest({ secrets: [SECRET], method: 'POST', pathWithQuery: PATH, body: BODY, webhookId: 'evt_123', now: NOW });

    expect(headers).toEqual({
      Timestamp: '2026-11-22T10:55:03Z',
      Authorization: 'hmac e94fd7f19cf4658f3e8dafc8207b89a3bb8b6ea8626c34c814ad1cccec5d7889',
      'webhook-id': 'evt_123',
      'webhook-timestamp': '1795344903',
      'webhook-signature': 'v1,Tqkg4STnya0XCD1pTFrh/J8hq3XayENA1CVknbZdMN8=',
    });
  });

  it('matches the rotation example published in the README', () => {
    const headers = signRequest({
      secrets: [SECRET, 'example-secret-2-do-not-use'],
      method: 'POST',
      pathWithQuery: PATH,
      body: BODY,
      webhookId: 'evt_123',
      now: NOW,
    });

    expect(headers.Authorization).toBe(
      'hmac e94fd7f19cf4658f3e8dafc8207b89a3bb8b6ea8626c34c814ad1cccec5d7889, ' +
        'hmac 0817bb728328bcc36d116fff6b772f96623cf509ce5c4035f7d833fc21c279ad',
    );
    expect(headers['webhook-signature']).toBe(
      'v1,Tqkg4STnya0XCD1pTFrh/J8hq3XayENA1CVknbZdMN8= v1,jau3my4wFQ3eOMHmfVjKX16JgCj+nRItEX6owRN3YWs=',
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
    const expected = createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(`evt_123.1795344903.${BODY}`).digest('base64');

    expect(computeStandardWebhookSignature(SECRET, 'evt_123', 1795344903, BODY)).toBe(expected);
  });
});
