import { describe, expect, it } from '@jest/globals';
import { retryDelay, parseRetryAfter } from './fcm-errors.js';
import { batches, planPushJobs, pushJobId, recipientKinds } from './fan-out.js';
import { notificationContent } from './notification-content.js';
import { maskToken } from './push-transport.js';

const event = { eventId: '0d9e7c1a-1111-4222-8333-444455556666', offerId: 'f00d0000-1111-4222-8333-444455556666', organisationId: 'org', title: 'T' };

describe('batching', () => {
  it('splits into batches of at most 500, keeping order', () => {
    const items = Array.from({ length: 1234 }, (_, i) => i);
    const split = batches(items);
    expect(split.map((b) => b.length)).toEqual([500, 500, 234]);
    expect(split.flat()).toEqual(items);
    expect(batches([])).toEqual([]);
  });

  it('plans deterministic jobs: same devices in any order → same job ids and batches', () => {
    const devices = Array.from({ length: 1001 }, (_, i) => ({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, workerId: `w${i}` }));
    const kinds = new Map(devices.map((d) => [d.workerId, 'offer.created' as const]));
    const first = planPushJobs(event, kinds, devices);
    const second = planPushJobs(event, kinds, [...devices].reverse());
    expect(first).toEqual(second);
    expect(first.map((job) => job.jobId)).toEqual([0, 1, 2].map((i) => `${event.eventId}.${i}`));
    expect(first.map((job) => job.data.targets.length)).toEqual([500, 500, 1]);
    expect(new Set(first.flatMap((job) => job.data.targets.map((t) => t.d))).size).toBe(1001);
  });

  it('only plans devices of recipients, each with its worker’s kind', () => {
    const kinds = recipientKinds([
      { kind: 'offer.successful', workerIds: ['a'] },
      { kind: 'offer.unsuccessful', workerIds: ['b', 'a'] },
    ]);
    expect([...kinds]).toEqual([
      ['a', 'offer.successful'],
      ['b', 'offer.unsuccessful'],
    ]);
    const plan = planPushJobs(event, kinds, [
      { id: '2', workerId: 'b' },
      { id: '1', workerId: 'a' },
      { id: '3', workerId: 'stranger' },
    ]);
    expect(plan).toHaveLength(1);
    expect(plan[0].data.targets).toEqual([
      { d: '1', w: 'a', k: 'offer.successful' },
      { d: '2', w: 'b', k: 'offer.unsuccessful' },
    ]);
  });

  it('job ids never contain a single colon (BullMQ forbids it)', () => {
    expect(pushJobId(event.eventId, 3)).not.toContain(':');
  });
});

describe('notification content', () => {
  it('words each kind and carries the offer in data', () => {
    const offer = { offerId: 'o', organisationId: 'org', title: 'Bar staff' };
    expect(notificationContent('offer.created', offer, 'e')).toEqual({
      kind: 'offer.created',
      title: 'New offer of work',
      body: '“Bar staff”: tap to apply or reject.',
      data: { kind: 'offer.created', offerId: 'o', organisationId: 'org', eventId: 'e', stage: 'created', stageOrder: '1' },
    });
    expect(notificationContent('offer.successful', offer, 'e').body).toBe('You were successful for “Bar staff”.');
    expect(notificationContent('offer.unsuccessful', offer, 'e').body).toBe('You were not selected for “Bar staff”.');
    expect(notificationContent('offer.withdrawn', offer, 'e').body).toBe('“Bar staff” was withdrawn by the sender.');
    expect(notificationContent('offer.created', { ...offer, title: 'x'.repeat(500) }, 'e').body.length).toBeLessThan(160);
  });
});

describe('retry timing and masking', () => {
  it('backs off exponentially but never sooner than Retry-After', () => {
    expect(retryDelay(1, 1000)).toBe(1000);
    expect(retryDelay(3, 1000)).toBe(4000);
    expect(retryDelay(1, 1000, 30_000)).toBe(30_000);
    expect(retryDelay(30, 1000)).toBe(15 * 60_000);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8_000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('never shows a token in full', () => {
    const token = 'dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx';
    const masked = maskToken(token);
    expect(masked).not.toContain(token.slice(6, -4));
    expect(masked.startsWith(token.slice(0, 6))).toBe(true);
    expect(maskToken('short')).toBe('***');
  });
});
