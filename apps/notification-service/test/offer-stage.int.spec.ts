import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { OfferCompletedEvent, OfferWithdrawnEvent } from '@availability/contracts';
import type { CreatedWorker } from '@availability/platform-client';
import { eventually, queryDatabase, startTestPlatform, type TestPlatform } from '@availability/testing';
import { call, envelope, EventPublisher, offerCreated } from './helpers.js';

/**
 * The order of an offer's pushes (OfferStageRule) in notification-service as a process, over real
 * PostgreSQL, Redis and NATS JetStream, with the recording push transport: a push that arrives after
 * a later stage was pushed is logged superseded and never handed to the transport.
 */
let platform: TestPlatform;
let events: EventPublisher;
let service: string;
let organisationId: string;
let worker: CreatedWorker;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory', 'notification-service'], {
    PUSH_TRANSPORT: 'recording',
    SMTP_URL: 'smtp://127.0.0.1:9', // no e-mail in this suite
  });
  service = platform.url('notification-service');
  const organisation = await platform.admin.createOrganisation(`Push Order ${randomBytes(3).toString('hex')}`, 'hirer');
  organisationId = organisation.id;
  [worker] = await platform.admin.createWorkers(organisationId, [{ name: 'Worker' }]);
  const device = await call(service, 'PUT', '/worker/devices', worker.token, { token: `order-${randomBytes(40).toString('base64url')}`, platform: 'android', appVersion: '1.2.3' });
  expect([200, 201]).toContain(device.status);
  events = await EventPublisher.connect(platform.events);
});

afterAll(async () => {
  await events?.close();
  await platform?.stop();
});

async function pushLog(offerId: string): Promise<Array<{ eventId: string; kind: string; data: Record<string, string> }>> {
  return (await call<{ pushes: Array<{ eventId: string; kind: string; data: Record<string, string> }> }>(service, 'GET', `/dev/push-log?offerId=${offerId}`)).json.pushes;
}

/** The final outcome of each of these events' pushes, once each has one. */
async function outcomes(eventIds: string[]): Promise<Map<string, string>> {
  const final = async () =>
    queryDatabase<{ event_id: string; status: string }>(
      platform.database.url,
      `SELECT event_id, status FROM notifications.push_delivery WHERE event_id = ANY($1::uuid[]) AND status NOT IN ('sending', 'retrying')`,
      [eventIds],
    );
  await eventually(async () => (await final()).length === eventIds.length, 15_000, `outcomes of ${eventIds.join(', ')}`);
  return new Map((await final()).map((row) => [row.event_id, row.status]));
}

function completed(offerId: string): OfferCompletedEvent {
  return { ...envelope(organisationId), offerId, title: 'Forklift driver', successfulWorkerIds: [worker.id], unsuccessfulWorkerIds: [] };
}

function withdrawn(offerId: string): OfferWithdrawnEvent {
  return { ...envelope(organisationId), offerId, title: 'Forklift driver', workerIds: [worker.id] };
}

describe('order of pushes', () => {
  it('an offer-created push arriving after the final one is superseded and never sent', async () => {
    const offerId = randomUUID();
    const final = completed(offerId);
    await events.publish('offers.completed', final);
    expect(await outcomes([final.eventId])).toEqual(new Map([[final.eventId, 'sent']]));
    const late = { ...offerCreated(organisationId, [worker.id], 'Forklift driver'), offerId };
    await events.publish('offers.created', late);
    expect((await outcomes([late.eventId])).get(late.eventId)).toBe('superseded');
    const pushes = await pushLog(offerId);
    expect(pushes.map((p) => p.eventId)).toEqual([final.eventId]);
    expect(pushes[0].data).toMatchObject({ stage: 'final', stageOrder: '3' });
  });

  it('of two final pushes about one offer at once, exactly one is sent', async () => {
    const offerId = randomUUID();
    const [first, second] = [completed(offerId), withdrawn(offerId)];
    await Promise.all([events.publish('offers.completed', first), events.publish('offers.withdrawn', second)]);
    const statuses = await outcomes([first.eventId, second.eventId]);
    expect([...statuses.values()].sort()).toEqual(['sent', 'superseded']);
    const sent = [...statuses].find(([, status]) => status === 'sent')?.[0];
    expect((await pushLog(offerId)).map((p) => p.eventId)).toEqual([sent]);
  });
});
