import { describe, expect, it } from '@jest/globals';
import { deduplicationKey, webhookIdOf } from './webhook-identity.js';

describe('webhookIdOf', () => {
  it('takes one id of the platform’s form, <eventId>:<organisationId>', () => {
    const id = '0b6c5f0e-8a55-4a8e-9f55-2f8e6a1c9d11:7d9a3c2e-1f4b-4c55-8a11-3b2f0c9e6d21';
    expect(webhookIdOf({ 'webhook-id': id })).toEqual({ webhookId: id });
  });

  it('refuses none, several, and ids that name no event (those of /test/auth and /contact-suggestions)', () => {
    expect(webhookIdOf({})).toEqual({ problem: expect.stringMatching(/must carry a webhook-id/) });
    for (const value of ['', 'test-0b6c5f0e-8a55-4a8e-9f55-2f8e6a1c9d11', 'suggest-1', 'a:b:c', 'a b:c', `${'a'.repeat(65)}:b`, ['a:b', 'a:b']]) {
      expect(webhookIdOf({ 'webhook-id': value as string })).toEqual({ problem: expect.stringMatching(/webhook-id must be/) });
    }
  });
});

describe('deduplicationKey', () => {
  it('is the body’s eventId where there is one, whatever the webhook-id', () => {
    const body = '{"eventId":"e-1","offerId":"o","workerId":"w","response":"applied","respondedAt":"2026-11-24T09:00:00.000Z"}';
    expect(deduplicationKey('e-1:org', body)).toBe('event:e-1');
    expect(deduplicationKey('other:org', body)).toBe('event:e-1');
  });

  it('is the webhook-id without a body, or without an eventId in it', () => {
    expect(deduplicationKey('e-2:org', '')).toBe('webhook:e-2:org');
    expect(deduplicationKey('e-2:org', '{"eventId":7}')).toBe('webhook:e-2:org');
    expect(deduplicationKey('e-2:org', '{not json')).toBe('webhook:e-2:org');
    expect(deduplicationKey('e-2:org', '["e-1"]')).toBe('webhook:e-2:org');
  });
});
