import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OffersClient, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { freePort, ServiceProcess, startTestPlatform, type TestPlatform } from '@availability/testing';
import { createSenderClient, OffersApiError, type NewOffer, type Offer, type SenderClient } from '../src/index.js';

/**
 * The sender client against the real offers-api (and the contact-directory it asks who is who), each
 * a process: what a hirer or agency integrating with the platform would see.
 */
const RATE_LIMIT = 2;
let platform: TestPlatform;
let limitedOffersApi: ServiceProcess | undefined;
let acme: SeededOrganisation;
let sender: SenderClient;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory', 'offers-api']);
  acme = await seedOrganisation(platform.admin, { name: 'Acme Staffing', workers: 3 });
  sender = createSenderClient({ baseUrl: platform.url('offers-api'), apiKey: acme.apiKey });
});

afterAll(async () => {
  await limitedOffersApi?.stop();
  await platform?.stop();
});

const DAY = 24 * 3600_000;

/** An offer to the given workers over the next two days, typed as the API documents it. */
function newOffer(workerIds: string[], title = 'Warehouse pickers, night shift'): NewOffer {
  const start = Math.ceil(Date.now() / DAY) * DAY + DAY + 8 * 3600_000;
  const slot = (day: number) => ({ start: new Date(start + day * DAY).toISOString(), end: new Date(start + day * DAY + 8 * 3600_000).toISOString() });
  return { createdByUserId: acme.user.id, title, details: 'Hi-vis provided.', workerIds, events: [slot(0), slot(1)] };
}

async function failure(call: Promise<unknown>): Promise<OffersApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OffersApiError);
  return error as OffersApiError;
}

const workerIds = (count: number) => acme.workers.slice(0, count).map((worker) => worker.id);

describe('sender client against offers-api', () => {
  it('creates an offer and reads it back, typed, with every worker awaiting', async () => {
    const body = newOffer(workerIds(2));
    const { id, replayed } = await sender.createOffer(body);

    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(replayed).toBe(false);
    const offer: Offer = await sender.getOffer(id);
    expect(offer).toMatchObject({ id, title: body.title, details: body.details, isHistoric: false, widthdrawn: false, complete: false, events: body.events });
    expect(offer.recipients.map(({ workerId, name, response, confirmation }) => ({ workerId, name, response, confirmation }))).toEqual(
      acme.workers.slice(0, 2).map((worker) => ({ workerId: worker.id, name: worker.name, response: 'awaiting', confirmation: '' })),
    );
  });

  it('replays a creation repeated with the same Idempotency-Key', async () => {
    const body = newOffer(workerIds(1));
    const key = `order-${Date.now()}`;
    const first = await sender.createOffer(body, { idempotencyKey: key });
    const again = await sender.createOffer(body, { idempotencyKey: key });

    expect(again).toEqual({ id: first.id, replayed: true });
    const reused = await failure(sender.createOffer(newOffer(workerIds(1), 'Another title'), { idempotencyKey: key }));
    expect([reused.status, reused.problemName]).toEqual([422, 'idempotency-key-reused']);
  });

  it('completes an offer with the worker who applied: they are successful, everyone else is told they are not', async () => {
    const { id } = await sender.createOffer(newOffer(workerIds(3)));
    const [chosen] = acme.workers;
    const answer = await new OffersClient(platform.url('offers-api'), chosen.token).answer(id, 'applied');
    expect(answer.status).toBe(200);

    await sender.completeOffer(id, [chosen.id]);

    const offer = await sender.getOffer(id);
    expect([offer.complete, offer.isHistoric, offer.widthdrawn]).toEqual([true, true, false]);
    expect(Object.fromEntries(offer.recipients.map((r) => [r.workerId, r.confirmation]))).toEqual({
      [acme.workers[0].id]: 'successful',
      [acme.workers[1].id]: 'unsuccessful',
      [acme.workers[2].id]: 'unsuccessful',
    });
    const again = await failure(sender.completeOffer(id, [chosen.id]));
    expect([again.status, again.problemName]).toEqual([409, 'offer-complete']);
  });

  it('withdraws an offer, harmlessly twice; completing it afterwards is a 409 problem', async () => {
    const { id } = await sender.createOffer(newOffer(workerIds(2)));

    await sender.withdrawOffer(id);
    await sender.withdrawOffer(id);

    const offer = await sender.getOffer(id);
    expect([offer.widthdrawn, offer.isHistoric, offer.complete]).toEqual([true, true, false]);
    expect(offer.recipients.every((r) => r.confirmation === 'withdrawn')).toBe(true);
    const late = await failure(sender.completeOffer(id, []));
    expect([late.status, late.problemName]).toEqual([409, 'offer-withdrawn']);
  });

  it('throws a validation failure as OffersApiError naming the field', async () => {
    const body = newOffer(workerIds(1));
    const [slot] = body.events;

    const error = await failure(sender.createOffer({ ...body, events: [{ start: slot.end, end: slot.start }] }));

    expect(error).toMatchObject({ operation: 'POST /offer', status: 400, title: 'Bad Request' });
    expect(error.problemName).toBe('validation-failed');
    expect(Object.keys(error.errors)).toEqual(['events[0].end']);
    expect(error.errors['events[0].end'].length).toBeGreaterThan(0);
    expect(error.message).toContain('events[0].end');
  });

  it('names the element of the completion list that is not a worker who applied', async () => {
    const { id } = await sender.createOffer(newOffer(workerIds(2)));

    const error = await failure(sender.completeOffer(id, [acme.workers[1].id]));

    expect([error.status, error.problemName, Object.keys(error.errors)]).toEqual([400, 'validation-failed', ['[0]']]);
  });

  it('throws an unknown offer as a 404 problem', async () => {
    const error = await failure(sender.getOffer('00000000-0000-4000-8000-000000000000'));
    expect([error.status, error.problemName, error.retryAfterSeconds]).toEqual([404, 'not-found', undefined]);
  });

  it('throws a 429 past the rate limit with the Retry-After the API sent, without retrying unless asked', async () => {
    limitedOffersApi = await ServiceProcess.start({ app: 'offers-api', port: await freePort(), env: { ...platform.env, RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) } });
    // An organisation of its own, so no other test's requests count against the limit.
    const globex = await seedOrganisation(platform.admin, { name: 'Globex Hiring', workers: 0 });
    const limited = createSenderClient({ baseUrl: limitedOffersApi.url, apiKey: globex.apiKey });
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (let i = 0; i < RATE_LIMIT; i += 1) expect((await failure(limited.getOffer(unknown))).status).toBe(404);

    const error = await failure(limited.getOffer(unknown));

    expect([error.status, error.problemName]).toEqual([429, 'rate-limited']);
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
  });
});
