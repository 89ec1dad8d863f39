import { describe, expect, it } from '@jest/globals';
// `standardwebhooks` is CommonJS; under native ESM jest its `exports.Webhook` is exposed as a named export.
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { signRequest, verifyStandardWebhook } from './index.js';

const SECRET = 'integrator-secret-1';
const BODY = '{"offerId":"off_123","answer":"accepted"}';

function signNow(secrets: string[], body: string | Buffer = BODY, now = new Date()) {
  return signRequest({ secrets, method: 'POST', pathWithQuery: '/hooks/v1/offer/response', body, webhookId: 'evt_42', now });
}

/** `Webhook#verify` throws on failure; this turns that into a boolean so assertions read plainly. */
function acceptedByStandardWebhooks(secret: string, body: string | Buffer, headers: Record<string, string>): boolean {
  try {
    new Webhook(secret, { format: 'raw' }).verify(body, headers);
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) {
      return false;
    }
    throw error;
  }
}

describe('compatibility with the standardwebhooks package', () => {
  it('accepts our webhook-* headers and returns the parsed payload', () => {
    const headers = signNow([SECRET]);

    expect(new Webhook(SECRET, { format: 'raw' }).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it('accepts a Buffer body and a non-ASCII payload', () => {
    const body = Buffer.from('{"note":"Zoë ✓ 日本"}', 'utf8');

    expect(acceptedByStandardWebhooks(SECRET, body, signNow([SECRET], body))).toBe(true);
  });

  it('accepts an empty body', () => {
    expect(acceptedByStandardWebhooks(SECRET, '', signNow([SECRET], ''))).toBe(true);
  });

  it('accepts rotation headers with either secret, and rejects an unrelated one', () => {
    const headers = signNow(['old-secret', 'new-secret']);

    expect(acceptedByStandardWebhooks('old-secret', BODY, headers)).toBe(true);
    expect(acceptedByStandardWebhooks('new-secret', BODY, headers)).toBe(true);
    expect(acceptedByStandardWebhooks('other-secret', BODY, headers)).toBe(false);
  });

  it('rejects a tampered body and a stale timestamp', () => {
    expect(acceptedByStandardWebhooks(SECRET, `${BODY} `, signNow([SECRET]))).toBe(false);

    const stale = signNow([SECRET], BODY, new Date(Date.now() - 6 * 60_000));
    expect(acceptedByStandardWebhooks(SECRET, BODY, stale)).toBe(false);
  });

  it('produces exactly the signature the package computes (raw key, not base64-decoded)', () => {
    const now = new Date('2026-11-22T10:55:03Z');
    const ours = signNow([SECRET], BODY, now)['webhook-signature'];

    expect(ours).toBe(new Webhook(SECRET, { format: 'raw' }).sign('evt_42', now, BODY));
  });

  it('our verifier accepts signatures produced by the package', () => {
    const now = new Date('2026-11-22T10:55:03Z');
    const headers = {
      'webhook-id': 'msg_abc',
      'webhook-timestamp': '1795344903',
      'webhook-signature': new Webhook(SECRET, { format: 'raw' }).sign('msg_abc', now, BODY),
    };

    expect(verifyStandardWebhook({ secret: SECRET, body: BODY, headers, now })).toEqual({ ok: true });
  });
});
