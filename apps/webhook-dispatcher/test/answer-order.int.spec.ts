import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@availability/testing';
import { type DeliveryJson, type DispatcherTestBed, OFFER_RESPONSE, offerResponseEvent, type ReceivedRequest, startDispatcherTestBed } from './harness.js';

/**
 * Answers in order over the dispatcher process: an older answer whose retry comes after a newer one
 * from the same worker about the same offer is superseded (never sent again); one redelivered on
 * request is sent, marked as a redelivery; one first seen after a newer is logged and never sent.
 */
let bed: DispatcherTestBed;

beforeAll(async () => {
  bed = await startDispatcherTestBed({ WEBHOOK_BACKOFF_BASE_MS: '100', WEBHOOK_BACKOFF_CAP_MS: '400', WEBHOOK_MAX_ATTEMPTS: '6' });
}, 60_000);

afterAll(async () => {
  await bed?.stop();
});

interface Answer {
  eventId: string;
  response: string;
  sequence: number;
}

/** The integrator guide's rule: apply an answer only if its sequence is above the highest applied. */
function applyInOrder(calls: ReceivedRequest[]): Answer[] {
  const applied: Answer[] = [];
  for (const call of calls) {
    const answer = JSON.parse(call.body) as Answer;
    if (applied.length === 0 || answer.sequence > (applied.at(-1) as Answer).sequence) applied.push(answer);
  }
  return applied;
}

describe('answers in order', () => {
  it("supersedes the older answer's retry once the newer is logged: the integrator ends with the latest", async () => {
    const org = randomUUID();
    bed.nats.targets.set(org, { baseUrl: `${bed.receiver.url}/${org}`, secrets: ['order-secret'] });
    const subject = { offerId: randomUUID(), workerId: randomUUID() };
    const first = offerResponseEvent(org, { ...subject, response: 'applied', sequence: 1 });
    const second = offerResponseEvent(org, { ...subject, response: 'rejected', previousResponse: 'applied', sequence: 2 });
    // The first answer's call ends (500) only once the second is delivered: its retry then finds the newer answer logged.
    let secondDelivered!: () => void;
    const newerLogged = new Promise<void>((resolve) => (secondDelivered = resolve));
    bed.receiver.respond = (request) => (request.body.includes(first.eventId as string) ? { status: 500, until: newerLogged } : { status: 200 });
    const calls = () => bed.receiver.to(`/${org}/`);

    await bed.nats.publish(OFFER_RESPONSE, first);
    await eventually(() => calls().length === 1, 15_000, "the first answer's call");
    await bed.nats.publish(OFFER_RESPONSE, second);
    await bed.settled(second.eventId as string, 'succeeded');
    secondDelivered();

    const older = await bed.settled(first.eventId as string, 'superseded');
    expect(older).toMatchObject({ attempts: 1, nextAttemptAt: null, lastError: 'a newer answer from this worker about this offer replaced it' });
    expect(calls().filter((c) => c.body.includes(first.eventId as string))).toHaveLength(1);
    expect(applyInOrder(calls()).at(-1)).toMatchObject({ eventId: second.eventId, response: 'rejected', sequence: 2 });

    // Asked for, an old answer is sent again, marked as a redelivery: the integrator's rule drops it.
    bed.receiver.respond = () => ({ status: 200 });
    const redelivered = await bed.admin.call<DeliveryJson>('POST', `/admin/deliveries/${older.id}/redeliver`);
    expect(redelivered.status).toBe(202);
    expect(await bed.settled(first.eventId as string, 'succeeded')).toMatchObject({ series: 1 });
    const again = calls().filter((c) => c.body.includes(first.eventId as string));
    expect(again.at(-1)?.headers['webhook-redelivery']).toBe('true');
    expect(calls().find((c) => c.body.includes(second.eventId as string))?.headers['webhook-redelivery']).toBeUndefined();
    expect(applyInOrder(calls()).at(-1)).toMatchObject({ eventId: second.eventId, sequence: 2 });
  });

  it('supersedes an older answer that died as the newer arrives: a redelivery by time leaves it', async () => {
    const org = randomUUID();
    bed.nats.targets.set(org, { baseUrl: `${bed.receiver.url}/${org}`, secrets: ['order-secret'] });
    const since = new Date(Date.now() - 1_000).toISOString();
    const subject = { offerId: randomUUID(), workerId: randomUUID() };
    const first = offerResponseEvent(org, { ...subject, response: 'applied', sequence: 1 });
    const second = offerResponseEvent(org, { ...subject, response: 'rejected', previousResponse: 'applied', sequence: 2 });
    bed.receiver.respond = (request) => (request.body.includes(first.eventId as string) ? { status: 500 } : { status: 200 });
    await bed.nats.publish(OFFER_RESPONSE, first);
    await bed.settled(first.eventId as string, 'dead');
    await bed.nats.publish(OFFER_RESPONSE, second);
    await bed.settled(second.eventId as string, 'succeeded');

    expect(await bed.settled(first.eventId as string, 'superseded')).toMatchObject({ attempts: 6, series: 0 });
    const byTime = await bed.admin.call<{ redelivered: number }>('POST', '/admin/deliveries/redeliver', { since, organisationId: org });
    expect(byTime).toMatchObject({ status: 202, json: { redelivered: 0 } });
  });

  it('logs an answer first seen after a newer one as superseded, never sent; a redelivery by time leaves it', async () => {
    const org = randomUUID();
    bed.nats.targets.set(org, { baseUrl: `${bed.receiver.url}/${org}`, secrets: ['order-secret'] });
    bed.receiver.respond = () => ({ status: 200 });
    const since = new Date(Date.now() - 1_000).toISOString();
    const subject = { offerId: randomUUID(), workerId: randomUUID() };
    const newer = offerResponseEvent(org, { ...subject, response: 'rejected', sequence: 3 });
    const late = offerResponseEvent(org, { ...subject, response: 'applied', sequence: 2 });
    const unnumbered = offerResponseEvent(org, { ...subject, response: 'applied' });
    await bed.nats.publish(OFFER_RESPONSE, newer);
    await bed.settled(newer.eventId as string, 'succeeded');
    await bed.nats.publish(OFFER_RESPONSE, late);
    await bed.nats.publish(OFFER_RESPONSE, unnumbered);

    expect(await bed.settled(late.eventId as string, 'superseded')).toMatchObject({ attempts: 0, attemptLog: [] });
    // An answer without sequence predates the numbering: never superseded.
    await bed.settled(unnumbered.eventId as string, 'succeeded');
    expect(bed.receiver.to(`/${org}/`).filter((c) => c.body.includes(late.eventId as string))).toEqual([]);
    const byTime = await bed.admin.call<{ redelivered: number }>('POST', '/admin/deliveries/redeliver', { since, organisationId: org });
    expect(byTime).toMatchObject({ status: 202, json: { redelivered: 0 } });
  });
});
