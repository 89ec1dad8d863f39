import { describe, expect, it } from '@jest/globals';
import { signRequest, SigningKeyRing, verifyWithKeySet } from './index.js';

/**
 * The v1a worked example of README.md and docs/integrator-guide.md. The key is RFC 8032's first
 * ed25519 test vector: public knowledge, for examples only.
 */
const EXAMPLE_SEED = 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A';
const EXAMPLE_KEY_SET = {
  keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'example-2026-11', use: 'sig', alg: 'EdDSA' }],
};
const BODY = '{"offerId":"off_123","answer":"accepted"}';
const NOW = new Date('2026-11-22T10:55:03Z');

describe('v1a worked example', () => {
  const ring = SigningKeyRing.parse(JSON.stringify([{ kid: 'example-2026-11', seed: EXAMPLE_SEED }]));

  it('publishes the documented key set', () => {
    expect(ring.keySet()).toEqual(EXAMPLE_KEY_SET);
  });

  it('signs the documented request with the documented headers, which verify against the key set', () => {
    const headers = signRequest({
      secrets: [],
      schemes: ['v1a'],
      signingKey: ring.active,
      method: 'POST',
      pathWithQuery: '/hooks/v1/offer/response?x=1',
      body: BODY,
      webhookId: 'evt_123',
      now: NOW,
    });
    expect(headers).toEqual({
      'webhook-id': 'evt_123',
      'webhook-timestamp': '1795344903',
      'webhook-signature': 'v1a,Hl73MKi5vT5VhAPyZ4jD3A9OBySO/K1wiAr+Uu03t5qkcL+WfhDCRM1TQPP1lenzRRrjZiD+h9Ac23mwuFlxBQ==',
      'webhook-key-id': 'example-2026-11',
    });
    expect(verifyWithKeySet({ headers }, BODY, EXAMPLE_KEY_SET, { now: NOW })).toEqual({ ok: true });
  });
});
