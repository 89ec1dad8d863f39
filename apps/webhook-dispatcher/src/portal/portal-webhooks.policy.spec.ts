import { describe, expect, it } from '@jest/globals';
import { ProblemException } from '@availability/service-core';
import { PortalWebhooksPolicy } from './portal-webhooks.policy.js';

const NOW = Date.parse('2026-11-24T09:00:00.000Z');
const policy = new PortalWebhooksPolicy(() => NOW);
const admin = { userId: 'u1', organisationId: 'org-1', role: 'admin' as const };
const member = { ...admin, role: 'member' as const };

/** The problem a decision refused with, or undefined when it allowed. */
function refusal(decide: () => void): { status: number; type: string; errors?: Record<string, string[]> } | undefined {
  try {
    decide();
    return undefined;
  } catch (error) {
    if (!(error instanceof ProblemException)) throw error;
    const { status, type, errors } = error.problem;
    return { status, type: type.slice(type.lastIndexOf('/') + 1), ...(errors ? { errors } : {}) };
  }
}

describe('portal webhooks policy', () => {
  it('redelivers by time from a moment in the last 30 days, allowing a fast client clock', () => {
    expect(refusal(() => policy.redeliverySince(new Date(NOW - 29 * 86_400_000)))).toBeUndefined();
    expect(refusal(() => policy.redeliverySince(new Date(NOW)))).toBeUndefined();
    expect(refusal(() => policy.redeliverySince(new Date(NOW + 30_000)))).toBeUndefined();
    expect(refusal(() => policy.redeliverySince(new Date(NOW - 31 * 86_400_000)))).toEqual({
      status: 400,
      type: 'validation-failed',
      errors: { since: ['must be within the last 30 days'] },
    });
    expect(refusal(() => policy.redeliverySince(new Date(NOW + 3_600_000)))).toEqual({ status: 400, type: 'validation-failed', errors: { since: ['must not be in the future'] } });
  });

  it('the window moves with the clock', () => {
    let now = NOW;
    const moving = new PortalWebhooksPolicy(() => now);
    const since = new Date(NOW - 29 * 86_400_000);
    expect(refusal(() => moving.redeliverySince(since))).toBeUndefined();
    now += 2 * 86_400_000;
    expect(refusal(() => moving.redeliverySince(since))?.status).toBe(400);
  });

  it('reaches back no further than the delivery log keeps deliveries, when that is shorter', () => {
    const short = new PortalWebhooksPolicy(() => NOW, 10);
    expect(refusal(() => short.redeliverySince(new Date(NOW - 10 * 86_400_000)))).toBeUndefined();
    expect(refusal(() => short.redeliverySince(new Date(NOW - 10 * 86_400_000 - 1)))).toEqual({
      status: 400,
      type: 'validation-failed',
      errors: { since: ['must be within the last 10 days'] },
    });
    // A longer retention keeps the bound on what one request can start.
    expect(refusal(() => new PortalWebhooksPolicy(() => NOW, 90).redeliverySince(new Date(NOW - 31 * 86_400_000)))?.status).toBe(400);
  });

  it('lets only admins re-enable the endpoint', () => {
    expect(refusal(() => policy.enable(admin))).toBeUndefined();
    expect(refusal(() => policy.enable(member))).toEqual({ status: 403, type: 'forbidden' });
  });

  it('sends nothing to a disabled endpoint, and redelivers nothing that was skipped', () => {
    expect(refusal(() => policy.sendable(undefined))).toBeUndefined();
    expect(refusal(() => policy.sendable({ disabledAt: null, disabledReason: null }))).toBeUndefined();
    expect(refusal(() => policy.sendable({ disabledAt: new Date(NOW), disabledReason: 'https://x.example answered 410 Gone' }))).toEqual({
      status: 409,
      type: 'webhook-endpoint-disabled',
    });
    expect(refusal(() => policy.redeliverable({ status: 'dead' }))).toBeUndefined();
    expect(refusal(() => policy.redeliverable({ status: 'succeeded' }))).toBeUndefined();
    expect(refusal(() => policy.redeliverable({ status: 'skipped' }))).toEqual({ status: 409, type: 'delivery-skipped' });
  });
});
