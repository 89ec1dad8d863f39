import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventProblem, type OfferView } from '@availability/contracts';
import { type HttpResult, offerBody, OffersClient, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { eventually, queryDatabase, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * The portal's offer API of offers-api (`/portal/offers…`, portal user tokens) with real PostgreSQL
 * and NATS, and the real contact-directory issuing and checking the tokens. Workers answer through
 * the worker API; senders' offers come from the API-key routes.
 */
interface Summary {
  id: string;
  title: string;
  status: string;
  createdAt: string;
  recipientCount: number;
  answers: { applied: number; rejected: number; none: number };
}
interface Page {
  offers: Summary[];
  nextCursor: string | null;
}
interface PortalRecipient {
  id: number;
  workerId: string;
  name?: string;
  response: string;
  respondedAt: string | null;
  confirmation: string;
}
type PortalOffer = Omit<OfferView, 'recipients'> & { status: string; recipients: PortalRecipient[] };
interface Problem {
  type: string;
  status: number;
  errors?: Record<string, string[]>;
}

let platform: TestPlatform;
let anonymous: OffersClient;
let acme: SeededOrganisation;
let globex: SeededOrganisation;
let sender: OffersClient;
/** Acme's admin (the seeded user) and a member, and Globex's admin: portal users. */
let acmeAdmin: OffersClient;
let acmeMember: OffersClient;
let globexAdmin: OffersClient;

beforeAll(async () => {
  platform = await startTestPlatform(['contact-directory', 'offers-api']);
  acme = await seedOrganisation(platform.admin, { name: 'Acme Staffing', workers: 6 });
  globex = await seedOrganisation(platform.admin, { name: 'Globex Hiring', workers: 2 });
  anonymous = new OffersClient(platform.url('offers-api'));
  sender = anonymous.as(acme.apiKey);
  const member = await platform.admin.createUser(acme.organisation.id, { email: `member@${acme.organisation.id.slice(0, 8)}.example`, name: 'Acme member', role: 'member' });
  acmeAdmin = anonymous.as((await platform.admin.issuePortalToken(acme.user.id)).token);
  acmeMember = anonymous.as((await platform.admin.issuePortalToken(member.id)).token);
  globexAdmin = anonymous.as((await platform.admin.issuePortalToken(globex.user.id)).token);
});

afterAll(async () => {
  await platform?.stop();
});

const ids = (org: SeededOrganisation, count: number, from = 0) => org.workers.slice(from, from + count).map((w) => w.id);
const worker = (org: SeededOrganisation, index: number) => anonymous.as(org.workers[index].token);

const list = (client: OffersClient, query = '') => client.call<Page>('GET', `/portal/offers${query}`);
const read = (client: OffersClient, id: string, headers: Record<string, string> = {}) => client.call<PortalOffer>('GET', `/portal/offers/${id}`, { headers });
const complete = (client: OffersClient, id: string, body: unknown) => client.call<Problem>('POST', `/portal/offers/${id}/complete`, { body });
const withdraw = (client: OffersClient, id: string) => client.call<Problem>('POST', `/portal/offers/${id}/withdraw`);

async function createOffer(org: SeededOrganisation, workerIds: string[], overrides: Record<string, unknown> = {}): Promise<string> {
  const result = await anonymous.as(org.apiKey).createOffer(offerBody(org.user.id, workerIds, overrides));
  expect(result.status).toBe(201);
  return result.text;
}

async function eventsFor(offerId: string, subject: string) {
  return (await platform.events.messages(subject)).filter((m) => m.data.offerId === offerId);
}

function expectProblem(result: HttpResult<unknown>, status: number, slug?: string): void {
  expect(result.status).toBe(status);
  expect(result.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(result.json).toMatchObject({ status, ...(slug ? { type: expect.stringContaining(slug) } : {}) });
}

describe('GET /portal/offers', () => {
  let initech: SeededOrganisation;
  let portal: OffersClient;
  /** Initech's offers, oldest first. */
  const created: string[] = [];

  beforeAll(async () => {
    initech = await seedOrganisation(platform.admin, { name: 'Initech', workers: 3 });
    portal = anonymous.as((await platform.admin.issuePortalToken(initech.user.id)).token);
    for (let i = 0; i < 5; i++) created.push(await createOffer(initech, ids(initech, 3), { title: `Shift ${i}` }));
    const client = anonymous.as(initech.apiKey);
    expect((await worker(initech, 0).answer(created[0], 'applied')).status).toBe(200);
    expect((await worker(initech, 1).answer(created[0], 'rejected')).status).toBe(200);
    expect((await client.complete(created[0], [initech.workers[0].id])).status).toBe(204);
    expect((await client.withdraw(created[1])).status).toBe(200);
    expect((await worker(initech, 2).answer(created[3], 'applied')).status).toBe(200);
    // Its last slot is over (a test-only write: an offer cannot be created in the past).
    await queryDatabase(platform.database.url, `UPDATE offers.offer SET ends_at = now() - interval '1 hour' WHERE id = $1`, [created[2]]);
  });

  it('lists the organisation’s offers newest first with status and answer counts', async () => {
    const result = await list(portal);
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    expect(result.json.nextCursor).toBeNull();
    expect(result.json.offers.map((o) => o.id)).toEqual([...created].reverse());
    const byId = new Map(result.json.offers.map((o) => [o.id, o]));
    expect(byId.get(created[0])).toEqual({
      id: created[0],
      title: 'Shift 0',
      status: 'complete',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      recipientCount: 3,
      answers: { applied: 1, rejected: 1, none: 1 },
    });
    expect(Object.keys(result.json.offers[0])).toEqual(['id', 'title', 'status', 'createdAt', 'recipientCount', 'answers']);
    expect([created.map((id) => byId.get(id)?.status)]).toEqual([['complete', 'withdrawn', 'ended', 'open', 'open']]);
    expect(byId.get(created[3])?.answers).toEqual({ applied: 1, rejected: 0, none: 2 });
    expect(byId.get(created[4])?.answers).toEqual({ applied: 0, rejected: 0, none: 3 });
  });

  it('pages with an opaque cursor, each offer once, the last page with no cursor', async () => {
    const seen: string[] = [];
    let query = '?limit=2';
    const pages: number[] = [];
    for (;;) {
      const page = await list(portal, query);
      expect(page.status).toBe(200);
      pages.push(page.json.offers.length);
      seen.push(...page.json.offers.map((o) => o.id));
      if (!page.json.nextCursor) break;
      expect(page.json.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
      query = `?limit=2&before=${page.json.nextCursor}`;
    }
    expect(pages).toEqual([2, 2, 1]);
    expect(seen).toEqual([...created].reverse());
    // Exactly a page's worth left: no empty page after it.
    const firstFour = await list(portal, '?limit=4');
    const rest = await list(portal, `?limit=4&before=${firstFour.json.nextCursor}`);
    expect(rest.json).toEqual({ offers: [expect.objectContaining({ id: created[0] })], nextCursor: null });
    expect((await list(portal, '?limit=5')).json.nextCursor).toBeNull();
  });

  it('orders offers created in the same microsecond by id, and pages through them without losing one', async () => {
    const ties = await queryDatabase<{ id: string }>(
      platform.database.url,
      `UPDATE offers.offer SET created_at = now() - interval '1 day' WHERE organisation_id = $1 AND id <> $2 RETURNING id`,
      [initech.organisation.id, created[4]],
    );
    try {
      const expected = [created[4], ...ties.map((t) => t.id).sort().reverse()];
      const seen: string[] = [];
      let query = '?limit=1';
      for (let guard = 0; guard < 10; guard++) {
        const page = await list(portal, query);
        seen.push(...page.json.offers.map((o) => o.id));
        if (!page.json.nextCursor) break;
        query = `?limit=1&before=${page.json.nextCursor}`;
      }
      expect(seen).toEqual(expected);
    } finally {
      // Back in creation order (a millisecond apart) for the other tests.
      for (const [index, id] of created.slice(0, 4).entries()) {
        await queryDatabase(platform.database.url, `UPDATE offers.offer SET created_at = now() - make_interval(mins => $2) WHERE id = $1`, [id, 10 - index]);
      }
    }
  });

  it('filters by status, and pages within the filter', async () => {
    const ids = async (query: string) => (await list(portal, query)).json.offers.map((o) => o.id);
    expect(await ids('?status=complete')).toEqual([created[0]]);
    expect(await ids('?status=withdrawn')).toEqual([created[1]]);
    expect(await ids('?status=ended')).toEqual([created[2]]);
    expect(await ids('?status=open')).toEqual([created[4], created[3]]);
    const first = await list(portal, '?status=open&limit=1');
    expect(first.json.offers.map((o) => o.id)).toEqual([created[4]]);
    const second = await list(portal, `?status=open&limit=1&before=${first.json.nextCursor}`);
    expect(second.json).toEqual({ offers: [expect.objectContaining({ id: created[3], status: 'open' })], nextCursor: null });
  });

  it('answers malformed parameters with a 400 problem naming each', async () => {
    const cases: Array<[string, string[]]> = [
      ['?status=bogus', ['status']],
      ['?status=OPEN', ['status']],
      ['?status=open&status=complete', ['status']],
      ['?limit=0', ['limit']],
      ['?limit=101', ['limit']],
      ['?limit=ten', ['limit']],
      ['?before=1000000', ['before']],
      ['?before=%00', ['before']],
      ['?limit=0&status=x&before=y', ['before', 'limit', 'status']],
    ];
    for (const [query, fields] of cases) {
      const result = await list(portal, query);
      expectProblem(result, 400, 'validation-failed');
      expect([query, Object.keys((result.json as unknown as Problem).errors ?? {}).sort()]).toEqual([query, fields]);
    }
    expect((await list(portal, '?limit=100')).status).toBe(200);
  });

  it('shows one organisation nothing of another’s', async () => {
    const mine = (await list(acmeAdmin, '?limit=100')).json.offers.map((o) => o.id);
    for (const id of created) expect(mine).not.toContain(id);
    const theirs = await list(portal, '?limit=100');
    expect(theirs.json.offers.map((o) => o.id).sort()).toEqual([...created].sort());
    // A cursor made from another organisation's offer only says where to start: still only your own offers.
    const initechCursor = (await list(portal, '?limit=1')).json.nextCursor as string;
    expect((await list(globexAdmin, `?before=${initechCursor}`)).json.offers.every((o) => !created.includes(o.id))).toBe(true);
  });
});

describe('GET /portal/offers/{id}', () => {
  it('is the offer as GET /offer/{id} shows it, with status, names and when each answer was given', async () => {
    const id = await createOffer(acme, ids(acme, 3));
    const portal = await read(acmeMember, id);
    expect(portal.status).toBe(200);
    expect(portal.headers.get('content-type')).toMatch(/^application\/json/);
    const api = (await sender.getOffer(id)).json;
    const { recipients, status, ...offer } = portal.json;
    const { recipients: apiRecipients, ...apiOffer } = api;
    expect(offer).toEqual(apiOffer);
    expect(status).toBe('open');
    expect(Object.keys(portal.json).slice(0, 10)).toEqual(Object.keys(api));
    expect(recipients).toEqual(apiRecipients.map((r) => ({ ...r, respondedAt: null })));
    expect(recipients.map((r) => r.name)).toEqual(acme.workers.slice(0, 3).map((w) => w.name));
  });

  it('shows each answer as workers give it, and answers 304 to If-None-Match until something changes', async () => {
    const id = await createOffer(acme, ids(acme, 3));
    const first = await read(acmeAdmin, id);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');

    const unchanged = await read(acmeAdmin, id, { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect((await read(acmeMember, id, { 'if-none-match': `W/${etag}` })).status).toBe(304);
    expect((await read(acmeMember, id, { 'if-none-match': `"other", ${etag}` })).status).toBe(304);
    expect((await read(acmeMember, id, { 'if-none-match': '"other"' })).status).toBe(200);

    const before = Date.now();
    expect((await worker(acme, 1).answer(id, 'applied')).status).toBe(200);
    const changed = await read(acmeAdmin, id, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    const etag2 = changed.headers.get('etag') as string;
    expect(etag2).not.toBe(etag);
    const answered = changed.json.recipients.find((r) => r.workerId === acme.workers[1].id) as PortalRecipient;
    expect(answered).toMatchObject({ response: 'applied', confirmation: '' });
    expect(Math.abs(Date.parse(answered.respondedAt as string) - before)).toBeLessThan(60_000);
    expect(changed.json.recipients.filter((r) => r.workerId !== acme.workers[1].id).map((r) => [r.response, r.respondedAt])).toEqual([
      ['awaiting', null],
      ['awaiting', null],
    ]);
    expect((await read(acmeAdmin, id, { 'if-none-match': etag2 })).status).toBe(304);

    // The same answer again changes nothing; a new answer does, with its own time.
    expect((await worker(acme, 1).answer(id, 'applied')).status).toBe(200);
    expect((await read(acmeAdmin, id, { 'if-none-match': etag2 })).status).toBe(304);
    expect((await worker(acme, 1).answer(id, 'rejected')).status).toBe(200);
    const rejected = await read(acmeAdmin, id, { 'if-none-match': etag2 });
    expect(rejected.status).toBe(200);
    const again = rejected.json.recipients.find((r) => r.workerId === acme.workers[1].id) as PortalRecipient;
    expect(again.response).toBe('rejected');
    expect(Date.parse(again.respondedAt as string)).toBeGreaterThanOrEqual(Date.parse(answered.respondedAt as string));
  });

  it('turns historic when the last slot ends, with a new ETag, though nothing was written to the offer', async () => {
    const end = Date.now() + 2500;
    const id = await createOffer(acme, ids(acme, 1), { events: [{ start: new Date(end - 1000).toISOString(), end: new Date(end).toISOString() }] });
    const first = await read(acmeAdmin, id);
    expect(first.json).toMatchObject({ isHistoric: false, status: 'open' });
    const etag = first.headers.get('etag') as string;
    expect((await read(acmeAdmin, id, { 'if-none-match': etag })).status).toBe(304);
    await new Promise((resolve) => setTimeout(resolve, end + 100 - Date.now()));
    const ended = await read(acmeAdmin, id, { 'if-none-match': etag });
    expect(ended.status).toBe(200);
    expect(ended.json).toMatchObject({ isHistoric: true, status: 'ended' });
    expect(ended.headers.get('etag')).not.toBe(etag);
  });

  it('leaves a recipient’s name out when the directory gave none', async () => {
    const id = await createOffer(acme, ids(acme, 2));
    await queryDatabase(platform.database.url, `UPDATE offers.recipient SET name = '' WHERE offer_id = $1 AND worker_id = $2`, [id, acme.workers[0].id]);
    const [nameless, named] = (await read(acmeAdmin, id)).json.recipients;
    expect('name' in nameless).toBe(false);
    expect(named.name).toBe(acme.workers[1].name);
  });

  it('is a 404 problem for unknown and malformed ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', 'x'.repeat(150)]) expectProblem(await read(acmeAdmin, id), 404, 'not-found');
  });
});

describe('POST /portal/offers/{id}/complete and /withdraw', () => {
  it('a member completes: 204, the offer and every recipient show it, one offers.completed event', async () => {
    const id = await createOffer(acme, ids(acme, 3));
    expect((await worker(acme, 0).answer(id, 'applied')).status).toBe(200);
    expect((await worker(acme, 1).answer(id, 'applied')).status).toBe(200);
    const etag = (await read(acmeMember, id)).headers.get('etag') as string;

    const result = await complete(acmeMember, id, [acme.workers[1].id]);
    expect(result.status).toBe(204);
    expect(result.text).toBe('');
    const after = await read(acmeMember, id, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.json).toMatchObject({ complete: true, isHistoric: true, widthdrawn: false, status: 'complete' });
    expect(after.json.recipients.map((r) => [r.workerId, r.response, r.confirmation])).toEqual([
      [acme.workers[0].id, 'applied', 'unsuccessful'],
      [acme.workers[1].id, 'applied', 'successful'],
      [acme.workers[2].id, 'awaiting', 'unsuccessful'],
    ]);
    const events = await eventually(async () => {
      const found = await eventsFor(id, 'offers.completed');
      return found.length > 0 && found;
    });
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      organisationId: acme.organisation.id,
      offerId: id,
      successfulWorkerIds: [acme.workers[1].id],
      unsuccessfulWorkerIds: [acme.workers[0].id, acme.workers[2].id],
    });
    expect(eventProblem('offers.completed', events[0].data)).toBeUndefined();

    // The same refusals as the sender API.
    expectProblem(await complete(acmeAdmin, id, []), 409, 'offer-complete');
    expectProblem(await withdraw(acmeAdmin, id), 409, 'offer-complete');
    expect((await sender.complete(id, [])).status).toBe(409);
  });

  it('refuses what the sender API refuses, with the same problems, changing nothing', async () => {
    const id = await createOffer(acme, ids(acme, 3));
    expect((await worker(acme, 0).answer(id, 'applied')).status).toBe(200);
    expect((await worker(acme, 1).answer(id, 'rejected')).status).toBe(200);
    for (const body of [[acme.workers[1].id], [acme.workers[0].id, acme.workers[5].id], { workerIds: [] }, [7], [acme.workers[0].id, acme.workers[0].id]]) {
      const portal = await complete(acmeAdmin, id, body);
      const api = await sender.complete(id, body);
      expectProblem(portal, 400, 'validation-failed');
      expect([body, portal.json]).toEqual([body, api.json]);
    }
    expect((await complete(acmeAdmin, id, [acme.workers[1].id])).json).toMatchObject({ errors: { '[0]': [expect.stringContaining('has not applied')] } });
    const body415 = await acmeAdmin.call('POST', `/portal/offers/${id}/complete`, { rawBody: 'x', headers: { 'content-type': 'text/plain' } });
    expect(body415.status).toBe(415);
    expect((await read(acmeAdmin, id)).json).toMatchObject({ complete: false, widthdrawn: false, status: 'open' });
    expectProblem(await complete(acmeAdmin, '00000000-0000-4000-8000-000000000000', []), 404, 'not-found');
    expectProblem(await withdraw(acmeAdmin, 'not-a-uuid'), 404, 'not-found');
  });

  it('withdraws: 200 with no body, one offers.withdrawn event naming every worker; a repeat is 200 and silent', async () => {
    const id = await createOffer(acme, ids(acme, 2));
    expect((await worker(acme, 0).answer(id, 'applied')).status).toBe(200);
    const result = await withdraw(acmeMember, id);
    expect(result.status).toBe(200);
    expect(result.text).toBe('');
    const after = (await read(acmeAdmin, id)).json;
    expect(after).toMatchObject({ widthdrawn: true, isHistoric: true, complete: false, status: 'withdrawn' });
    expect(after.recipients.map((r) => [r.response, r.confirmation])).toEqual([
      ['applied', 'withdrawn'],
      ['awaiting', 'withdrawn'],
    ]);
    expect((await withdraw(acmeAdmin, id)).status).toBe(200);
    const events = await eventually(async () => {
      const found = await eventsFor(id, 'offers.withdrawn');
      return found.length > 0 && found;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventsFor(id, 'offers.withdrawn')).toHaveLength(1);
    expect(events[0].data).toMatchObject({ organisationId: acme.organisation.id, offerId: id, workerIds: ids(acme, 2) });
    expectProblem(await complete(acmeAdmin, id, []), 409, 'offer-withdrawn');
    expect((await worker(acme, 1).answer(id, 'applied')).status).toBe(409);
  });
});

describe('authentication and tenant isolation', () => {
  it('needs a portal user token: none, an API key or a worker token is a 401 on every route, and a portal token is no API key', async () => {
    const id = await createOffer(acme, ids(acme, 1));
    for (const client of [anonymous, sender, worker(acme, 0), anonymous.as('put_not-a-real-token')]) {
      for (const result of [await list(client), await read(client, id), await complete(client, id, []), await withdraw(client, id)]) {
        expectProblem(result, 401);
      }
    }
    expect((await acmeAdmin.getOffer(id)).status).toBe(401);
    expect((await acmeAdmin.withdraw(id)).status).toBe(401);
    expect((await read(acmeAdmin, id)).json.widthdrawn).toBe(false);
  });

  it('another organisation’s offer is a 404 on every route, after the owner has read it and after every change, and stays untouched', async () => {
    const id = await createOffer(acme, ids(acme, 2));
    const expectRivalLockedOut = async () => {
      const owner = await read(acmeAdmin, id);
      expect(owner.status).toBe(200);
      const etag = owner.headers.get('etag') as string;
      for (const result of [await read(globexAdmin, id), await read(globexAdmin, id, { 'if-none-match': etag }), await read(globexAdmin, id, { 'if-none-match': '*' })]) {
        expectProblem(result, 404, 'not-found');
        expect(result.headers.get('etag')).toBeNull();
        expect(result.text).not.toContain(acme.workers[0].id);
      }
      expect((await list(globexAdmin, '?limit=100')).json.offers.map((o) => o.id)).not.toContain(id);
    };
    await expectRivalLockedOut();
    expect((await worker(acme, 0).answer(id, 'applied')).status).toBe(200);
    await expectRivalLockedOut();
    expectProblem(await complete(globexAdmin, id, [acme.workers[0].id]), 404, 'not-found');
    expectProblem(await withdraw(globexAdmin, id), 404, 'not-found');
    await expectRivalLockedOut();
    expect((await read(acmeAdmin, id)).json).toMatchObject({ complete: false, widthdrawn: false });

    expect((await complete(acmeAdmin, id, [acme.workers[0].id])).status).toBe(204);
    await expectRivalLockedOut();
    expectProblem(await withdraw(globexAdmin, id), 404, 'not-found');

    const withdrawn = await createOffer(acme, ids(acme, 1));
    expect((await read(acmeMember, withdrawn)).status).toBe(200);
    expect((await withdraw(acmeMember, withdrawn)).status).toBe(200);
    expectProblem(await read(globexAdmin, withdrawn), 404, 'not-found');
    expectProblem(await complete(globexAdmin, withdrawn, []), 404, 'not-found');
    expectProblem(await withdraw(globexAdmin, withdrawn), 404, 'not-found');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventsFor(withdrawn, 'offers.withdrawn')).toHaveLength(1);
    expect(await eventsFor(id, 'offers.withdrawn')).toHaveLength(0);
  });

  it('the owner’s portal and the sender API read the same offer after the rival’s attempts', async () => {
    const id = await createOffer(globex, ids(globex, 2));
    expect((await read(globexAdmin, id)).status).toBe(200);
    expectProblem(await read(acmeAdmin, id), 404, 'not-found');
    expect((await anonymous.as(globex.apiKey).getOffer(id)).json.recipients).toHaveLength(2);
  });
});
