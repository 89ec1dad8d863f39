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
const BODY = '{"eventId":"7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f","offerId":"0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b","workerId":"3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20","response":"applied","respondedAt":"2026-11-22T10:55:02.000Z"}';
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
      pathWithQuery: '/hooks/v1/offer/response',
      body: BODY,
      webhookId: '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      now: NOW,
    });
    expect(headers).toEqual({
      'webhook-id': '7d1f5a9e-2b3c-4d5e-8f90-1a2b3c4d5e6f:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      'webhook-timestamp': '1795344903',
      'webhook-signature': 'v1a,igrx6gxfhUTJtfAjjZVDYgrXnnqBmK80XTPsMNHLpwVj5ADgzKuW0mWG4RRJdGdg/0B8d2U1yssg5ktAzwIzDQ==',
      'webhook-key-id': 'example-2026-11',
    });
    expect(verifyWithKeySet({ headers }, BODY, EXAMPLE_KEY_SET, { now: NOW })).toEqual({ ok: true });
  });
});
