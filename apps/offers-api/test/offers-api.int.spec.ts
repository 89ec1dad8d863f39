import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventProblem } from '@availability/contracts';
import type { OfferView } from '@availability/contracts';
import { offerBody, OffersClient, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { eventually, queryDatabase, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * offers-api over HTTP with real PostgreSQL and NATS, and the real contact-directory answering who
 * is who. Every endpoint, every error path of DESIGN 3, and the events each state change publishes.
 */
let platform: TestPlatform;
let anonymous: OffersClient;
let acme: SeededOrganisation;
let globex: SeededOrganisation;
let sender: OffersClient;
let rival: OffersClient;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory', 'offers-api']);
  acme = await seedOrganisation(platform.admin, { name: 'Acme Staffing', workers: 12 });
  globex = await seedOrganisation(platform.admin, { name: 'Globex Hiring', workers: 2 });
  anonymous = new OffersClient(platform.url('offers-api'));
  sender = anonymous.as(acme.apiKey);
  rival = anonymous.as(globex.apiKey);
});

afterAll(async () => {
  await platform?.stop();
});

const ids = (org: SeededOrganisation, count: number, from = 0) => org.workers.slice(from, from + count).map((w) => w.id);
const worker = (org: SeededOrganisation, index: number) => anonymous.as(org.workers[index].token);

async function createOffer(workerIds = ids(acme, 3), overrides: Record<string, unknown> = {}): Promise<string> {
  const result = await sender.createOffer(offerBody(acme.user.id, workerIds, overrides));
  expect(result.status).toBe(201);
  return result.text;
}

async function offerCount(): Promise<number> {
  const rows = await queryDatabase<{ n: number }>(platform.database.url, 'SELECT count(*)::int AS n FROM offers.offer');
  return rows[0].n;
}

async function eventsFor(offerId: string, subject?: string) {
  return (await platform.events.messages(subject)).filter((m) => m.data.offerId === offerId);
}

describe('POST /offer', () => {
  it('creates the offer: 201, Location, the id as plain text, and exactly one offers.created event', async () => {
    const body = offerBody(acme.user.id, ids(acme, 3));
    const result = await sender.createOffer(body);

    expect(result.status).toBe(201);
    expect(result.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(result.text).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.headers.get('location')).toBe(`/offer/${result.text}`);

    const events = await eventually(async () => {
      const found = await eventsFor(result.text, 'offers.created');
      return found.length > 0 && found;
    });
    expect(events).toHaveLength(1);
    expect(events[0].msgId).toBe(events[0].data.eventId);
    expect(events[0].data).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      occurredAt: expect.stringMatching(/Z$/),
      organisationId: acme.organisation.id,
      offerId: result.text,
      title: body.title,
      createdByUserId: acme.user.id,
      notifyEmailAddress: body.notifyEmailAddress,
      events: body.events,
      workerIds: ids(acme, 3),
    });
  });

  it('reads back exactly as spec 2.3: fields, widthdrawn spelling, initial flags, recipients awaiting', async () => {
    const body = offerBody(acme.user.id, ids(acme, 2));
    const id = (await sender.createOffer(body)).text;
    const result = await sender.getOffer(id);

    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(result.json)).toEqual([
      'id', 'title', 'details', 'isHistoric', 'widthdrawn', 'complete', 'locationPlaceId', 'createdAt', 'events', 'recipients',
    ]);
    expect(result.json).toEqual({
      id,
      title: body.title,
      details: body.details,
      isHistoric: false,
      widthdrawn: false,
      complete: false,
      locationPlaceId: body.locationPlaceId,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      events: body.events,
      recipients: acme.workers.slice(0, 2).map((w) => ({
        id: expect.any(Number),
        workerId: w.id,
        name: w.name,
        response: 'awaiting',
        confirmation: '',
      })),
    });
    expect(Math.abs(Date.parse(result.json.createdAt) - Date.now())).toBeLessThan(60_000);
    const [first, second] = result.json.recipients;
    expect(Number.isInteger(first.id) && second.id > first.id).toBe(true);
  });

  it('keeps recipients in the order the request named them, their ids rising in that order, whatever the ids sort as', async () => {
    // An organisation of its own: the other tests count the offers their workers were sent.
    const initech = await seedOrganisation(platform.admin, { name: 'Initech', workers: 12 });
    const initechSender = anonymous.as(initech.apiKey);
    // Descending by id, then the rest interleaved: no order the database could fall back on by itself.
    const byId = ids(initech, 12).sort();
    const named = [...byId.slice(6).reverse(), ...byId.slice(0, 6).filter((_, i) => i % 2 === 1), ...byId.slice(0, 6).filter((_, i) => i % 2 === 0)];
    const created = await initechSender.createOffer(offerBody(initech.user.id, named));
    expect(created.status).toBe(201);

    const recipients = (await initechSender.getOffer(created.text)).json.recipients;
    expect(recipients.map((r) => r.workerId)).toEqual(named);
    expect(recipients.every((r, i) => i === 0 || r.id > recipients[i - 1].id)).toBe(true);
  });

  it('offers sent at once are written together, and each reads back as sent with its own event', async () => {
    // An organisation of its own: the other tests count the offers their workers were sent.
    const umbrella = await seedOrganisation(platform.admin, { name: 'Umbrella Staffing', workers: 12 });
    const umbrellaSender = anonymous.as(umbrella.apiKey);
    const bodies = Array.from({ length: 60 }, (_, i) => {
      const named = ids(umbrella, 1 + (i % 12)).reverse();
      return offerBody(umbrella.user.id, named, { title: `Shift ${i}` });
    });
    const created = await Promise.all(bodies.map((body) => umbrellaSender.createOffer(body)));
    expect(created.map((result) => result.status)).toEqual(bodies.map(() => 201));

    for (const [i, result] of created.entries()) {
      const offer = (await umbrellaSender.getOffer(result.text)).json;
      expect([offer.title, offer.recipients.map((r) => r.workerId)]).toEqual([bodies[i].title, bodies[i].workerIds]);
    }
    const events = await eventually(async () => {
      const found = (await platform.events.messages('offers.created')).filter((m) => m.data.organisationId === umbrella.organisation.id);
      return found.length >= created.length && found;
    });
    expect(events.map((m) => m.data.offerId).sort()).toEqual(created.map((result) => result.text).sort());
    // Offers committed together share their transaction's time: fewer times than offers.
    const times = await queryDatabase<{ n: number }>(platform.database.url, 'SELECT count(DISTINCT created_at)::int AS n FROM offers.offer WHERE organisation_id = $1', [umbrella.organisation.id]);
    expect(times[0].n).toBeLessThan(created.length);
  });

  it('matches request property names case-insensitively, at every level', async () => {
    const body = offerBody(acme.user.id, ids(acme, 1));
    const shouty = {
      CreatedByUserId: body.createdByUserId,
      TITLE: body.title,
      workerids: body.workerIds,
      Events: body.events.map((e) => ({ Start: e.start, END: e.end })),
    };
    const result = await sender.createOffer(shouty);
    expect(result.status).toBe(201);
    const offer = (await sender.getOffer(result.text)).json;
    expect(offer.title).toBe(body.title);
    expect(offer.events).toEqual(body.events);
    expect(offer.details).toBe('');
    expect(offer.locationPlaceId).toBe('');
  });

  it('accepts the key as X-Api-Key as well as Bearer, and api-version=1.0', async () => {
    const result = await anonymous.call('POST', '/offer?api-version=1.0', {
      body: offerBody(acme.user.id, ids(acme, 1)),
      headers: { 'x-api-key': acme.apiKey },
    });
    expect(result.status).toBe(201);
  });

  describe('rejects bad input with a problem+json 400 and changes nothing', () => {
    const cases: Array<[string, (b: ReturnType<typeof offerBody>) => unknown, string[]]> = [
      ['missing required fields', () => ({}), ['createdByUserId', 'title', 'workerIds', 'events']],
      ['an empty title', (b) => ({ ...b, title: '' }), ['title']],
      ['a title over 200 characters', (b) => ({ ...b, title: 'x'.repeat(201) }), ['title']],
      ['no workers', (b) => ({ ...b, workerIds: [] }), ['workerIds']],
      ['a repeated worker', (b) => ({ ...b, workerIds: [b.workerIds[0], b.workerIds[0]] }), ['workerIds']],
      ['a worker id that is not a string', (b) => ({ ...b, workerIds: [42] }), ['workerIds']],
      ['no events', (b) => ({ ...b, events: [] }), ['events']],
      ['an event ending before it starts', (b) => ({ ...b, events: [{ start: b.events[0].end, end: b.events[0].start }] }), ['events[0].end']],
      ['an event in the past', (b) => ({ ...b, events: [{ start: '2020-01-01T08:00:00Z', end: '2020-01-01T16:00:00Z' }] }), ['events[0].start']],
      ['a timestamp that is not ISO 8601', (b) => ({ ...b, events: [{ start: 'tomorrow', end: b.events[0].end }] }), ['events[0].start']],
      ['a timestamp not in UTC', (b) => ({ ...b, events: [{ start: b.events[0].start.replace('Z', '+02:00'), end: b.events[0].end }] }), ['events[0].start']],
      ['an invalid notify address', (b) => ({ ...b, notifyEmailAddress: 'not-an-email' }), ['notifyEmailAddress']],
      ['a title given twice in different case', (b) => ({ ...b, Title: 'other' }), ['title']],
      ['a user of another organisation', (b) => ({ ...b, createdByUserId: globex.user.id }), ['createdByUserId']],
      ['a worker the organisation does not know', (b) => ({ ...b, workerIds: [globex.workers[0].id] }), ['workerIds']],
      ['a JSON array instead of an object', () => [1, 2], ['body']],
    ];

    it.each(cases)('%s', async (_, mutate, fields) => {
      const before = await offerCount();
      const result = await sender.createOffer(mutate(offerBody(acme.user.id, ids(acme, 2))));
      expect(result.status).toBe(400);
      expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = result.json as { type: string; title: string; status: number; detail: string; errors: Record<string, string[]> };
      expect(problem).toMatchObject({ status: 400, title: 'Bad Request', type: expect.stringContaining('validation-failed') });
      expect(typeof problem.detail).toBe('string');
      expect(Object.keys(problem.errors).sort()).toEqual([...fields].sort());
      for (const field of fields) expect(problem.errors[field].every((m) => typeof m === 'string' && m.length > 0)).toBe(true);
      expect(await offerCount()).toBe(before);
    });

    it('malformed JSON', async () => {
      const result = await sender.call('POST', '/offer', { rawBody: '{"title": ', headers: { 'content-type': 'application/json' } });
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ status: 400, type: expect.stringContaining('malformed-json') });
    });

    it('a body that is not JSON (415)', async () => {
      const result = await sender.call('POST', '/offer', { rawBody: 'title=x', headers: { 'content-type': 'text/plain' } });
      expect(result.status).toBe(415);
      expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it('an oversized body (413)', async () => {
      const before = await offerCount();
      const huge = offerBody(acme.user.id, ids(acme, 1), { details: 'x'.repeat(3 * 1024 * 1024) });
      const result = await sender.createOffer(huge);
      expect(result.status).toBe(413);
      expect(result.json).toMatchObject({ status: 413, type: expect.stringContaining('payload-too-large') });
      expect(await offerCount()).toBe(before);
    });

    it('an unsupported api-version', async () => {
      const result = await sender.call('POST', '/offer?api-version=2.0', { body: offerBody(acme.user.id, ids(acme, 1)) });
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ status: 400, errors: { 'api-version': [expect.any(String)] } });
    });
  });

  describe('Idempotency-Key', () => {
    it('a repeat with the same key and body returns the first offer, and only one offer and event exist', async () => {
      const body = offerBody(acme.user.id, ids(acme, 2));
      const headers = { 'idempotency-key': `order-${Date.now()}` };
      const first = await sender.createOffer(body, headers);
      const again = await sender.createOffer(body, headers);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      const rows = await queryDatabase(platform.database.url, 'SELECT id FROM offers.offer WHERE id = $1', [first.text]);
      expect(rows).toHaveLength(1);
      await eventually(async () => (await eventsFor(first.text, 'offers.created')).length === 1);
    });

    it('a repeat whose properties come in another order or letter case, or with unknown ones, is the same body', async () => {
      const body = offerBody(acme.user.id, ids(acme, 2));
      const headers = { 'idempotency-key': `reordered-${Date.now()}` };
      const first = await sender.createOffer(body, headers);
      const reversed = Object.fromEntries(Object.entries(body).reverse());
      reversed.events = body.events.map((slot) => ({ end: slot.end, start: slot.start }));
      const recased = Object.fromEntries(Object.entries(body).map(([key, value]) => [key.toUpperCase(), value]));
      for (const repeat of [reversed, recased, { ...body, surprise: true }]) {
        const again = await sender.createOffer(repeat, headers);
        expect({ status: again.status, text: again.text, replayed: again.headers.get('idempotent-replayed') }).toEqual({
          status: 201,
          text: first.text,
          replayed: 'true',
        });
      }
      // Order inside an array is meaning (who was asked first, which slot comes first): not the same body.
      const swapped = await sender.createOffer({ ...body, workerIds: [...body.workerIds].reverse() }, headers);
      expect(swapped.status).toBe(422);
    });

    it('concurrent repeats create one offer', async () => {
      const body = offerBody(acme.user.id, ids(acme, 2));
      const headers = { 'idempotency-key': `burst-${Date.now()}` };
      const before = await offerCount();
      const results = await Promise.all(Array.from({ length: 8 }, () => sender.createOffer(body, headers)));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
      expect(new Set(results.map((r) => r.text)).size).toBe(1);
      expect(await offerCount()).toBe(before + 1);
    });

    it('the same key with a different body is a 422 and creates nothing', async () => {
      const headers = { 'idempotency-key': `reuse-${Date.now()}` };
      await sender.createOffer(offerBody(acme.user.id, ids(acme, 1)), headers);
      const before = await offerCount();
      const result = await sender.createOffer(offerBody(acme.user.id, ids(acme, 2)), headers);
      expect(result.status).toBe(422);
      expect(result.json).toMatchObject({ status: 422, type: expect.stringContaining('idempotency-key-reused') });
      expect(await offerCount()).toBe(before);
    });

    it('keys are per organisation', async () => {
      const headers = { 'idempotency-key': `shared-${Date.now()}` };
      const mine = await sender.createOffer(offerBody(acme.user.id, ids(acme, 1)), headers);
      const theirs = await rival.createOffer(offerBody(globex.user.id, ids(globex, 1)), headers);
      expect(theirs.status).toBe(201);
      expect(theirs.text).not.toBe(mine.text);
    });

    it('an unusable key is a 400', async () => {
      const result = await sender.createOffer(offerBody(acme.user.id, ids(acme, 1)), { 'idempotency-key': 'x'.repeat(256) });
      expect(result.status).toBe(400);
      expect(result.json).toMatchObject({ errors: { 'Idempotency-Key': [expect.any(String)] } });
    });
  });
});

describe('authentication and tenant isolation', () => {
  it('no credential is a 401 problem with WWW-Authenticate', async () => {
    const result = await anonymous.createOffer(offerBody(acme.user.id, ids(acme, 1)));
    expect(result.status).toBe(401);
    expect(result.headers.get('www-authenticate')).toBe('Bearer');
    expect(result.json).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('an unknown key, and a worker token on the sender API, are 401', async () => {
    expect((await anonymous.as('apk_not-a-real-key').getOffer('00000000-0000-4000-8000-000000000000')).status).toBe(401);
    expect((await worker(acme, 0).createOffer(offerBody(acme.user.id, ids(acme, 1)))).status).toBe(401);
  });

  it('another organisation’s offer is a 404 for every operation, and stays untouched', async () => {
    const id = await createOffer(ids(acme, 2));
    expect((await rival.getOffer(id)).status).toBe(404);
    expect((await rival.complete(id, [])).status).toBe(404);
    expect((await rival.withdraw(id)).status).toBe(404);
    const offer = (await sender.getOffer(id)).json;
    expect(offer).toMatchObject({ complete: false, widthdrawn: false });
  });

  // Reads are served from a per-instance cache of offer documents: the owner's read fills it, so a
  // rival reading after the owner must still get a 404 and not the cached body.
  it('another organisation reading after the owner has read (and after every change) gets a 404, never the cached offer', async () => {
    const id = await createOffer(ids(acme, 3));
    const expectRivalLockedOut = async () => {
      expect((await sender.getOffer(id)).status).toBe(200);
      const read = await rival.getOffer(id);
      expect(read.status).toBe(404);
      expect(read.text).not.toContain(acme.workers[0].id);
    };
    await expectRivalLockedOut();
    expect((await worker(acme, 0).answer(id, 'applied')).status).toBe(200);
    expect((await worker(globex, 0).answer(id, 'rejected')).status).toBe(404);
    await expectRivalLockedOut();
    expect((await rival.complete(id, [acme.workers[0].id])).status).toBe(404);
    expect((await rival.withdraw(id)).status).toBe(404);
    await expectRivalLockedOut();
    expect((await sender.getOffer(id)).json).toMatchObject({ complete: false, widthdrawn: false });

    expect((await sender.complete(id, [acme.workers[0].id])).status).toBe(204);
    await expectRivalLockedOut();
    expect((await rival.withdraw(id)).status).toBe(404);

    const withdrawn = await createOffer(ids(acme, 1));
    expect((await sender.getOffer(withdrawn)).status).toBe(200);
    expect((await sender.withdraw(withdrawn)).status).toBe(200);
    expect((await sender.getOffer(withdrawn)).json.widthdrawn).toBe(true);
    expect((await rival.getOffer(withdrawn)).status).toBe(404);
    expect((await rival.complete(withdrawn, [])).status).toBe(404);
  });

  it('a revoked key stops working at once', async () => {
    const key = await platform.admin.createApiKey(acme.organisation.id, 'short-lived');
    const client = anonymous.as(key.key);
    expect((await client.createOffer(offerBody(acme.user.id, ids(acme, 1)))).status).toBe(201);
    await platform.admin.revokeApiKey(key.id);
    await eventually(async () => (await client.getOffer('00000000-0000-4000-8000-000000000000')).status === 401, 5000, 'revocation');
  });

  it('unknown and malformed offer ids are 404 problems', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', 'x'.repeat(150)]) {
      const result = await sender.getOffer(id);
      expect(result.status).toBe(404);
      expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('worker app: listing and answering', () => {
  it('a worker sees only the offers sent to them, newest first, with paging', async () => {
    const mine = [await createOffer(ids(acme, 1, 5)), await createOffer(ids(acme, 1, 5)), await createOffer(ids(acme, 1, 5))];
    await createOffer(ids(acme, 1, 6));
    const me = worker(acme, 5);
    const page1 = await me.myOffers('?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.json.offers.map((o) => o.id)).toEqual([mine[2], mine[1]]);
    expect(page1.json.offers[0]).toMatchObject({ response: 'awaiting', confirmation: '', widthdrawn: false, complete: false });
    const page2 = await me.myOffers(`?limit=2&before=${page1.json.nextCursor}`);
    expect(page2.json.offers.map((o) => o.id)).toEqual([mine[0]]);
    expect(page2.json.nextCursor).toBeNull();
    expect((await me.myOffers('?limit=0')).status).toBe(400);
    expect((await me.myOffers('?before=abc')).status).toBe(400);
  });

  it('Apply shows in GET /offer at once and publishes one offers.response.recorded; the same answer again publishes nothing', async () => {
    const id = await createOffer(ids(acme, 2));
    // Read first, so a cached copy of the offer exists before the answer changes it.
    expect((await sender.getOffer(id)).json.recipients[0].response).toBe('awaiting');
    const me = worker(acme, 0);
    const answered = await me.answer(id, 'applied');
    expect(answered.status).toBe(200);
    expect(answered.json).toMatchObject({ id, response: 'applied' });
    // The answer's view comes from the answering statement itself: the same document, keys in the same order, as a read.
    expect(answered.text).toBe((await me.myOffer(id)).text);
    const offer = (await sender.getOffer(id)).json;
    expect(offer.recipients.find((r) => r.workerId === acme.workers[0].id)?.response).toBe('applied');
    expect(offer.recipients.find((r) => r.workerId === acme.workers[1].id)?.response).toBe('awaiting');

    expect((await me.answer(id, 'applied')).status).toBe(200);
    const events = await eventually(async () => {
      const found = await eventsFor(id, 'offers.response.recorded');
      return found.length > 0 && found;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventsFor(id, 'offers.response.recorded')).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      organisationId: acme.organisation.id,
      offerId: id,
      workerId: acme.workers[0].id,
      response: 'applied',
      previousResponse: 'awaiting',
      respondedAt: expect.stringMatching(/Z$/),
      sequence: 1,
    });
  });

  it('changing the answer is a new event, numbered after the last for that recipient alone', async () => {
    const id = await createOffer(ids(acme, 1));
    const me = worker(acme, 0);
    await me.answer(id, 'applied');
    await me.answer(id, 'rejected');
    await me.answer(id, 'rejected');
    await me.answer(id, 'applied');
    const events = await eventually(async () => {
      const found = await eventsFor(id, 'offers.response.recorded');
      return found.length === 3 && found;
    });
    expect(events.map((e) => [e.data.previousResponse, e.data.response, e.data.sequence])).toEqual([
      ['awaiting', 'applied', 1],
      ['applied', 'rejected', 2],
      ['rejected', 'applied', 3],
    ]);
    expect((await sender.getOffer(id)).json.recipients[0].response).toBe('applied');
  });

  it('a worker cannot answer an offer not sent to them, or answer nonsense', async () => {
    const id = await createOffer(ids(acme, 1, 0));
    expect((await worker(acme, 1).answer(id, 'applied')).status).toBe(404);
    expect((await worker(globex, 0).answer(id, 'applied')).status).toBe(404);
    const bad = await worker(acme, 0).answer(id, 'maybe');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ errors: { response: [expect.any(String)] } });
    expect((await anonymous.as(acme.apiKey).answer(id, 'applied')).status).toBe(401);
  });
});

describe('GET /worker/offers/{id}', () => {
  const expectNotFound = (result: { status: number; headers: Headers }) => {
    expect(result.status).toBe(404);
    expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  };

  it('shows a worker an offer sent to them, with their own answer, its sender, and nothing about the other recipients', async () => {
    const body = offerBody(acme.user.id, ids(acme, 2, 7));
    const id = (await sender.createOffer(body)).text;
    const result = await worker(acme, 7).myOffer(id);
    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      id,
      organisationId: acme.organisation.id,
      title: body.title,
      details: body.details,
      locationPlaceId: body.locationPlaceId,
      isHistoric: false,
      widthdrawn: false,
      complete: false,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      events: body.events,
      response: 'awaiting',
      confirmation: '',
    });
    expect(result.text).not.toContain(acme.workers[8].id);
  });

  it('is a 404 problem for an offer sent to another worker, to another organisation’s worker, and for unknown or malformed ids', async () => {
    const id = await createOffer(ids(acme, 1, 7));
    expectNotFound(await worker(acme, 8).myOffer(id));
    expectNotFound(await worker(globex, 0).myOffer(id));
    expectNotFound(await worker(acme, 7).myOffer('00000000-0000-4000-8000-000000000000'));
    expectNotFound(await worker(acme, 7).myOffer('not-a-uuid'));
    expectNotFound(await worker(acme, 7).myOffer('x'.repeat(150)));
  });

  it('needs a worker token: none, or a sender’s API key, is a 401', async () => {
    const id = await createOffer(ids(acme, 1, 7));
    expect((await anonymous.myOffer(id)).status).toBe(401);
    expect((await sender.myOffer(id)).status).toBe(401);
  });

  it('follows the offer: the worker’s answer, then completion or withdrawal', async () => {
    const completed = await createOffer(ids(acme, 2, 7));
    const me = worker(acme, 7);
    const other = worker(acme, 8);
    expect((await me.answer(completed, 'applied')).status).toBe(200);
    expect((await me.myOffer(completed)).json).toMatchObject({ response: 'applied', confirmation: '', complete: false });
    expect((await other.myOffer(completed)).json).toMatchObject({ response: 'awaiting' });
    expect((await sender.complete(completed, [acme.workers[7].id])).status).toBe(204);
    expect((await me.myOffer(completed)).json).toMatchObject({ response: 'applied', confirmation: 'successful', complete: true, isHistoric: true, widthdrawn: false });
    expect((await other.myOffer(completed)).json).toMatchObject({ response: 'awaiting', confirmation: 'unsuccessful', complete: true, isHistoric: true });

    const withdrawn = await createOffer(ids(acme, 1, 7));
    expect((await me.answer(withdrawn, 'rejected')).status).toBe(200);
    expect((await sender.withdraw(withdrawn)).status).toBe(200);
    expect((await me.myOffer(withdrawn)).json).toMatchObject({ response: 'rejected', confirmation: 'withdrawn', widthdrawn: true, isHistoric: true, complete: false });
    expectNotFound(await worker(globex, 0).myOffer(withdrawn));
  });
});

describe('POST /offer/{id}/complete', () => {
  async function offerWithAnswers(): Promise<string> {
    const id = await createOffer(ids(acme, 3, 0));
    expect((await worker(acme, 0).answer(id, 'applied')).status).toBe(200);
    expect((await worker(acme, 1).answer(id, 'rejected')).status).toBe(200);
    return id;
  }

  it('completes: 204, flags set, each recipient told successful or not, one offers.completed event', async () => {
    const id = await offerWithAnswers();
    expect((await sender.getOffer(id)).json.complete).toBe(false);
    const result = await sender.complete(id, [acme.workers[0].id]);
    expect(result.status).toBe(204);
    expect(result.text).toBe('');

    const offer: OfferView = (await sender.getOffer(id)).json;
    expect(offer).toMatchObject({ complete: true, isHistoric: true, widthdrawn: false });
    expect(offer.recipients.map((r) => [r.workerId, r.response, r.confirmation])).toEqual([
      [acme.workers[0].id, 'applied', 'successful'],
      [acme.workers[1].id, 'rejected', 'unsuccessful'],
      [acme.workers[2].id, 'awaiting', 'unsuccessful'],
    ]);
    const events = await eventually(async () => {
      const found = await eventsFor(id, 'offers.completed');
      return found.length > 0 && found;
    });
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      organisationId: acme.organisation.id,
      title: 'Warehouse pickers, night shift',
      successfulWorkerIds: [acme.workers[0].id],
      unsuccessfulWorkerIds: [acme.workers[1].id, acme.workers[2].id],
    });
  });

  it('rejects workers who did not apply or are not recipients, and bodies that are not arrays, changing nothing', async () => {
    const id = await offerWithAnswers();
    const notApplied = await sender.complete(id, [acme.workers[1].id]);
    expect(notApplied.status).toBe(400);
    expect(notApplied.json).toMatchObject({ errors: { '[0]': [expect.stringContaining('has not applied')] } });
    const stranger = await sender.complete(id, [acme.workers[0].id, acme.workers[9].id]);
    expect(stranger.status).toBe(400);
    expect(stranger.json).toMatchObject({ errors: { '[1]': [expect.stringContaining('not a recipient')] } });
    expect((await sender.complete(id, { workerIds: [] })).status).toBe(400);
    expect((await sender.complete(id, [acme.workers[0].id, acme.workers[0].id])).status).toBe(400);
    expect((await sender.complete(id, [7])).status).toBe(400);
    expect((await sender.call('POST', `/offer/${id}/complete?api-version=3`, { body: [] })).status).toBe(400);
    expect((await sender.getOffer(id)).json.complete).toBe(false);
  });

  it('completing twice, withdrawing a completed offer and answering it are 409', async () => {
    const id = await offerWithAnswers();
    expect((await sender.complete(id, [])).status).toBe(204);
    const again = await sender.complete(id, []);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ status: 409, type: expect.stringContaining('offer-complete') });
    expect((await sender.withdraw(id)).status).toBe(409);
    expect((await worker(acme, 2).answer(id, 'applied')).status).toBe(409);
    await eventually(async () => (await eventsFor(id, 'offers.completed')).length === 1);
    expect(await eventsFor(id, 'offers.withdrawn')).toHaveLength(0);
  });
});

describe('GET /offer/{id}/withdraw', () => {
  it('withdraws: 200, flags set, confirmation withdrawn, one event naming every original worker; a repeat is 200 and silent', async () => {
    const id = await createOffer(ids(acme, 3));
    await worker(acme, 0).answer(id, 'applied');
    const result = await sender.withdraw(id);
    expect(result.status).toBe(200);
    const offer = (await sender.getOffer(id)).json;
    expect(offer).toMatchObject({ widthdrawn: true, isHistoric: true, complete: false });
    expect(offer.recipients.map((r) => r.confirmation)).toEqual(['withdrawn', 'withdrawn', 'withdrawn']);
    expect(offer.recipients[0].response).toBe('applied');

    expect((await sender.withdraw(id)).status).toBe(200);
    const events = await eventually(async () => {
      const found = await eventsFor(id, 'offers.withdrawn');
      return found.length > 0 && found;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventsFor(id, 'offers.withdrawn')).toHaveLength(1);
    expect(events[0].data).toMatchObject({ organisationId: acme.organisation.id, title: 'Warehouse pickers, night shift', workerIds: ids(acme, 3) });
  });

  it('completing or answering a withdrawn offer is 409', async () => {
    const id = await createOffer(ids(acme, 1));
    await sender.withdraw(id);
    const complete = await sender.complete(id, []);
    expect(complete.status).toBe(409);
    expect(complete.json).toMatchObject({ type: expect.stringContaining('offer-withdrawn') });
    expect((await worker(acme, 0).answer(id, 'applied')).status).toBe(409);
  });
});

describe('the event stream as a whole', () => {
  it('holds one event per state change, each with a unique eventId used as its Nats-Msg-Id', async () => {
    await eventually(async () => {
      const rows = await queryDatabase<{ n: number }>(platform.database.url, 'SELECT count(*)::int AS n FROM offers.outbox WHERE published_at IS NULL');
      return rows[0].n === 0;
    });
    const all = await platform.events.messages();
    const stored = await queryDatabase<{ event_id: string }>(platform.database.url, 'SELECT event_id FROM offers.outbox');
    expect(all.length).toBe(stored.length);
    expect(new Set(all.map((m) => m.data.eventId)).size).toBe(all.length);
    expect(new Set(all.map((m) => m.data.eventId))).toEqual(new Set(stored.map((r) => r.event_id)));
    for (const message of all) expect(message.msgId).toBe(message.data.eventId);
    const created = all.filter((m) => m.subject === 'offers.created').length;
    expect(created).toBe(await offerCount());
    // Every event matches its one definition, including offers.response.recorded, which the answering statement builds in SQL.
    expect(new Set(all.map((m) => m.subject))).toEqual(new Set(['offers.created', 'offers.response.recorded', 'offers.completed', 'offers.withdrawn']));
    for (const message of all) expect([message.subject, eventProblem(message.subject, message.data)]).toEqual([message.subject, undefined]);
  });
});

describe('service surface', () => {
  it('serves its OpenAPI document and a readiness check', async () => {
    const doc = await anonymous.call<{ paths: Record<string, unknown> }>('GET', '/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining(['/offer', '/offer/{id}', '/offer/{id}/complete', '/offer/{id}/withdraw', '/worker/offers/{id}/response']),
    );
    const health = await anonymous.call<{ status: string }>('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.json.status).toBe('ok');
  });

  it('carries the caller’s x-request-id into the response and onto the event the request caused', async () => {
    const traceId = `trace-${Date.now()}`;
    const result = await sender.createOffer(offerBody(acme.user.id, ids(acme, 1)), { 'x-request-id': traceId });
    expect(result.status).toBe(201);
    expect(result.headers.get('x-request-id')).toBe(traceId);
    const [created] = await eventually(async () => {
      const found = await eventsFor(result.text, 'offers.created');
      return found.length > 0 && found;
    });
    expect(created.traceId).toBe(traceId);
  });

  it('serves Prometheus metrics: request latency by route template, outbox backlog and process metrics', async () => {
    await sender.call('GET', `/offer/${await createOffer()}`);
    const metrics = await anonymous.call('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/offer\/:id",status_code="200"\} [1-9]/m);
    expect(metrics.text).toMatch(/^http_request_duration_seconds_count\{method="POST",route="\/offer",status_code="201"\} [1-9]/m);
    expect(metrics.text).toMatch(/^outbox_pending_events \d+$/m);
    expect(metrics.text).toMatch(/^outbox_oldest_pending_age_seconds [\d.e-]+$/m);
    expect(metrics.text).toMatch(/^outbox_published_events_total [1-9]\d*$/m);
    // How full the event stream is, and its bound (EVENTS_STREAM_MAX_BYTES, 1 GiB by default).
    expect(metrics.text).toMatch(/^jetstream_stream_bytes [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^jetstream_stream_max_bytes 1073741824$/m);
    expect(metrics.text).toMatch(/^process_cpu_seconds_total /m);
    // Sampled every 100 ms rather than prom-client's 10, and still served.
    expect(metrics.text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    // Raw ids never become label values.
    expect(metrics.text).not.toMatch(/route="\/offer\/[0-9a-f]{8}-/);
  });
});
