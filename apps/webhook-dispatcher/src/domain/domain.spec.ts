import { describe, expect, it } from '@jest/globals';
import { Value } from '@sinclair/typebox/value';
import { type ContactAddedEvent, eventProblem, EventSubject, type OfferResponseRecordedEvent, WorkerOfferResponse } from '@availability/contracts';
import { backoffCeiling, backoffDelay, holdWithJitter, scheduleSpan } from './backoff.js';
import { classifyFailure, classifyResponse } from './classify.js';
import { parseRetryAfter } from './retry-after.js';
import { contactAddedCall, jobIdFor, offerResponseCall, requestAsSent, targetUrl, testCall, webhookIdFor, webhookTypeOf } from './webhook-call.js';

const DEFAULTS = { baseMs: 10_000, factor: 2, capMs: 2 * 3_600_000 };
const EVENT_ID = '6f1c2b1e-1111-4222-8333-944445555666';

describe('backoff', () => {
  it('grows exponentially to the cap, with full jitter below the ceiling', () => {
    expect([1, 2, 3, 4].map((n) => backoffCeiling(n, DEFAULTS))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(backoffCeiling(11, DEFAULTS)).toBe(7_200_000);
    expect(backoffCeiling(30, DEFAULTS)).toBe(7_200_000);
    expect(backoffDelay(3, DEFAULTS, () => 0)).toBe(0);
    expect(backoffDelay(3, DEFAULTS, () => 0.5)).toBe(20_000);
    expect(backoffDelay(3, DEFAULTS, () => 0.999999)).toBeLessThanOrEqual(40_000);
  });

  it('spreads the default 30 attempts over about a day (expected) and under two days (worst)', () => {
    const { worstMs, expectedMs } = scheduleSpan(30, DEFAULTS);
    expect(worstMs / 3_600_000).toBeCloseTo(40.84, 1);
    expect(expectedMs / 3_600_000).toBeGreaterThan(18);
    expect(expectedMs / 3_600_000).toBeLessThan(24);
  });
});

describe('holdWithJitter', () => {
  it('waits at least the hold and at most as much again, capped at 5 s of jitter', () => {
    expect(holdWithJitter(1_000, () => 0)).toBe(1_000);
    expect(holdWithJitter(1_000, () => 0.5)).toBe(1_500);
    expect(holdWithJitter(30_000, () => 1)).toBe(35_000);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-22T10:55:00Z');
  it('reads delay-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:56:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['5', '9'], now)).toBe(5_000);
  });
  it('ignores what it does not understand', () => {
    for (const value of [undefined, '', '-5', '1.5', 'soon', '2026-11-22T10:56:30Z', '   ', '12s', '1e3', '0x10', '22 Nov 2026 10:56:30 GMT', 'Sun, 22 Nov 2026 10:56:30 UTC', 'Sun, 99 Nov 2026 10:56:30 GMT']) {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    }
    expect(parseRetryAfter([], now)).toBeUndefined();
  });
  it('reads all three HTTP-date forms a recipient must accept (RFC 9110 5.6.7), and long delays', () => {
    expect(parseRetryAfter('Sunday, 22-Nov-26 10:56:30 GMT', now)).toBe(90_000); // RFC 850
    expect(parseRetryAfter('Sun Nov 22 10:56:30 2026', now)).toBe(90_000); // asctime
    expect(parseRetryAfter('Tue Dec  1 10:55:00 2026', now)).toBe(9 * 86_400_000);
    expect(parseRetryAfter('sun, 22 nov 2026 10:56:30 gmt', now)).toBe(90_000);
    expect(parseRetryAfter('86400', now)).toBe(86_400_000);
  });
  it('knows every month, in each form, whatever the case', () => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    months.forEach((month, index) => {
      const at = Date.UTC(2027, index, 9, 8, 7, 6) - now;
      expect(parseRetryAfter(`Sat, 09 ${month} 2027 08:07:06 GMT`, now)).toBe(at);
      expect(parseRetryAfter(`saturday, 09-${month.toLowerCase()}-27 08:07:06 gmt`, now)).toBe(at);
      expect(parseRetryAfter(`SAT ${month.toUpperCase()}  9 08:07:06 2027`, now)).toBe(at);
    });
  });
  it('reads a two-digit RFC 850 year as the nearest one not more than 50 years ahead', () => {
    expect(parseRetryAfter('Monday, 23-Nov-76 10:55:00 GMT', now)).toBe(Date.UTC(2076, 10, 23, 10, 55) - now);
    expect(parseRetryAfter('Tuesday, 23-Nov-77 10:55:00 GMT', now)).toBe(0); // 1977
    expect(parseRetryAfter('Sunday, 22-Nov-99 10:56:30 GMT', now)).toBe(0);
  });
  it('ignores dates that do not exist', () => {
    for (const value of ['Sun, 31 Feb 2026 10:56:30 GMT', 'Sun, 22 Nov 2026 24:00:00 GMT', 'Sun, 22 Nov 2026 10:60:00 GMT', 'Sun, 22 Nov 2026 10:56:60 GMT', 'Sun, 00 Nov 2026 10:56:30 GMT', 'Sun, 22 Foo 2026 10:56:30 GMT', 'Sun Nov 31 10:56:30 2026']) {
      expect(parseRetryAfter(value, now)).toBeUndefined();
    }
  });
});

describe('classification', () => {
  it('maps statuses to success, retry, disable and client error', () => {
    expect(classifyResponse(200, {})).toEqual({ kind: 'success' });
    expect(classifyResponse(204, {})).toEqual({ kind: 'success' });
    expect(classifyResponse(500, {})).toEqual({ kind: 'retry', retryAfterMs: undefined, countsAsEndpointFailure: true });
    expect(classifyResponse(503, { 'retry-after': '7' })).toEqual({ kind: 'retry', retryAfterMs: 7_000, countsAsEndpointFailure: true });
    expect(classifyResponse(429, { 'retry-after': '3' })).toEqual({ kind: 'retry', retryAfterMs: 3_000, countsAsEndpointFailure: false });
    expect(classifyResponse(408, {})).toMatchObject({ kind: 'retry' });
    expect(classifyResponse(410, {})).toEqual({ kind: 'disable' });
    for (const status of [301, 400, 401, 403, 404, 422]) expect(classifyResponse(status, {})).toEqual({ kind: 'client-error' });
  });
  it('draws the lines between the classes at the exact statuses', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(classifyResponse(status, {})).toEqual({ kind: 'success' });
    for (const status of [100, 199, 300, 302, 304, 399, 400, 404, 407, 409, 424, 426, 428, 430, 451, 499]) {
      expect(classifyResponse(status, {})).toEqual({ kind: 'client-error' });
    }
    for (const status of [408, 425]) expect(classifyResponse(status, {})).toEqual({ kind: 'retry', retryAfterMs: undefined, countsAsEndpointFailure: true });
    for (const status of [500, 501, 502, 504, 599, 600]) {
      expect(classifyResponse(status, { 'retry-after': '5' })).toEqual({ kind: 'retry', retryAfterMs: undefined, countsAsEndpointFailure: true });
    }
    expect(classifyResponse(410, { 'retry-after': '5' })).toEqual({ kind: 'disable' });
  });

  it('reads Retry-After only on 429 and 503, and only a 429 leaves the circuit breaker alone', () => {
    const now = Date.parse('2026-11-22T10:55:00Z');
    const header = { 'retry-after': 'Sun, 22 Nov 2026 10:56:00 GMT' };
    expect(classifyResponse(429, header, now)).toEqual({ kind: 'retry', retryAfterMs: 60_000, countsAsEndpointFailure: false });
    expect(classifyResponse(503, header, now)).toEqual({ kind: 'retry', retryAfterMs: 60_000, countsAsEndpointFailure: true });
    expect(classifyResponse(429, {}, now)).toEqual({ kind: 'retry', retryAfterMs: undefined, countsAsEndpointFailure: false });
    expect(classifyResponse(503, { 'retry-after': 'later' }, now)).toEqual({ kind: 'retry', retryAfterMs: undefined, countsAsEndpointFailure: true });
    expect(classifyResponse(408, header, now)).toMatchObject({ retryAfterMs: undefined });
  });

  it('retries network failures and never forbidden addresses', () => {
    for (const kind of ['timeout', 'unreachable', 'dns', 'tls', 'invalid-answer'] as const) expect(classifyFailure(kind)).toEqual({ kind: 'retry', countsAsEndpointFailure: true });
    expect(classifyFailure('forbidden-address')).toEqual({ kind: 'forbidden' });
    expect(classifyFailure('invalid-url')).toEqual({ kind: 'forbidden' });
  });
});

describe('webhook calls', () => {
  const ORGANISATION_ID = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
  const envelope = { eventId: EVENT_ID, occurredAt: '2026-11-22T10:55:03.000Z', organisationId: ORGANISATION_ID };
  const answer = (fields: Partial<OfferResponseRecordedEvent> = {}): OfferResponseRecordedEvent => ({
    ...envelope,
    offerId: '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b',
    workerId: 'w1',
    response: 'applied',
    previousResponse: 'awaiting',
    respondedAt: '2026-11-22T10:55:03.000Z',
    ...fields,
  });
  const contact = (workerId: string): ContactAddedEvent => ({ ...envelope, contactId: '3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20', workerId });

  it('uses events as their schemas describe them (what the consumer lets through)', () => {
    expect(eventProblem(EventSubject.OfferResponseRecorded, answer())).toBeUndefined();
    expect(eventProblem(EventSubject.ContactAdded, contact('a b/ä'))).toBeUndefined();
  });

  it('POST /offer/response with the exact body and key order', () => {
    const call = offerResponseCall(answer());
    expect(call).toMatchObject({ organisationId: ORGANISATION_ID, eventId: EVENT_ID, subject: 'offers.response.recorded', method: 'POST', path: '/offer/response' });
    expect(call.body).toBe(`{"eventId":"${EVENT_ID}","offerId":"0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b","workerId":"w1","response":"applied","respondedAt":"2026-11-22T10:55:03.000Z"}`);
  });

  it('puts the recipient’s answer sequence after respondedAt, and sends an older event’s answer without one', () => {
    expect(offerResponseCall(answer({ sequence: 2 })).body).toBe(
      `{"eventId":"${EVENT_ID}","offerId":"0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b","workerId":"w1","response":"applied","respondedAt":"2026-11-22T10:55:03.000Z","sequence":2}`,
    );
    expect(eventProblem(EventSubject.OfferResponseRecorded, answer({ sequence: 2 }))).toBeUndefined();
    expect(eventProblem(EventSubject.OfferResponseRecorded, answer({ sequence: 0 }))).toBeDefined();
    expect(JSON.parse(offerResponseCall(answer()).body)).not.toHaveProperty('sequence');
  });

  it('sends a Worker Offer Response body the integrator contract describes', () => {
    const call = offerResponseCall(answer({ workerId: '3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20', response: 'rejected', previousResponse: 'applied', sequence: 2 }));
    expect(Value.Errors(WorkerOfferResponse, JSON.parse(call.body)).First()).toBeUndefined();
  });

  it('GET /contact/new/{workerId} with no body, the id percent-encoded', () => {
    expect(contactAddedCall(contact('a b/ä'))).toMatchObject({
      organisationId: ORGANISATION_ID,
      eventId: EVENT_ID,
      subject: 'contacts.added',
      method: 'GET',
      path: '/contact/new/a%20b%2F%C3%A4',
      body: '',
    });
  });

  it('a real event’s call carries no test mark', () => {
    expect(offerResponseCall(answer()).test).toBeUndefined();
    expect(JSON.parse(offerResponseCall(answer()).body)).not.toHaveProperty('test');
    expect(contactAddedCall(contact('w1')).test).toBeUndefined();
  });

  describe('test events', () => {
    const ids = () => {
      let n = 0;
      return () => `00000000-0000-4000-8000-00000000000${(n += 1)}`;
    };
    const now = new Date('2026-11-24T09:00:00.000Z');

    it('offer-response: the real call with made-up ids, marked test: true last in the body, valid under the contract', () => {
      const call = testCall('offer-response', ORGANISATION_ID, ids(), now);
      expect(call).toMatchObject({ organisationId: ORGANISATION_ID, subject: 'offers.response.recorded', method: 'POST', path: '/offer/response', test: true });
      expect(call.eventId).toBe('00000000-0000-4000-8000-000000000001');
      expect(call.body).toBe(
        '{"eventId":"00000000-0000-4000-8000-000000000001","offerId":"00000000-0000-4000-8000-000000000002",' +
          '"workerId":"00000000-0000-4000-8000-000000000003","response":"applied","respondedAt":"2026-11-24T09:00:00.000Z","sequence":1,"test":true}',
      );
      expect(Value.Errors(WorkerOfferResponse, JSON.parse(call.body)).First()).toBeUndefined();
    });

    it('contact-added: GET /contact/new/{a made-up worker id}, no body (the header marks it)', () => {
      const call = testCall('contact-added', ORGANISATION_ID, ids(), now);
      expect(call).toEqual({
        organisationId: ORGANISATION_ID,
        eventId: '00000000-0000-4000-8000-000000000001',
        subject: 'contacts.added',
        method: 'GET',
        path: '/contact/new/00000000-0000-4000-8000-000000000002',
        body: '',
        test: true,
      });
    });

    it('names each delivery’s webhook type from its subject', () => {
      expect(webhookTypeOf(testCall('offer-response', ORGANISATION_ID, ids(), now).subject)).toBe('offer-response');
      expect(webhookTypeOf(testCall('contact-added', ORGANISATION_ID, ids(), now).subject)).toBe('contact-added');
      expect(webhookTypeOf('offers.created')).toBeNull();
    });
  });

  it('derives stable webhook and job ids', () => {
    expect(webhookIdFor(EVENT_ID, 'org-1')).toBe(`${EVENT_ID}:org-1`);
    expect(jobIdFor(EVENT_ID, 'org-1', 0, 1)).toBe(`wh_${EVENT_ID}_org-1_a1`);
    expect(jobIdFor(EVENT_ID, 'org-1', 2, 3)).toBe(`wh_${EVENT_ID}_org-1_r2_a3`);
    expect(jobIdFor(EVENT_ID, 'org-1', 0, 1)).not.toContain(':');
    // A release names the attempt by its hold: another id than the attempt's own, the same for one hold.
    expect(jobIdFor(EVENT_ID, 'org-1', 0, 2, '1795877405051234')).toBe(`wh_${EVENT_ID}_org-1_a2_h1795877405051234`);
  });

  it('joins base URLs with or without a trailing slash, keeping their path and query', () => {
    expect(targetUrl('https://partner.example.com', '/offer/response')).toEqual({ url: 'https://partner.example.com/offer/response', pathWithQuery: '/offer/response' });
    expect(targetUrl('https://partner.example.com/', '/offer/response').pathWithQuery).toBe('/offer/response');
    expect(targetUrl('https://partner.example.com/hooks/v1/', '/offer/response')).toEqual({
      url: 'https://partner.example.com/hooks/v1/offer/response',
      pathWithQuery: '/hooks/v1/offer/response',
    });
    expect(targetUrl('https://p.example/hooks?tenant=7', '/contact/new/w%201')).toEqual({
      url: 'https://p.example/hooks/contact/new/w%201?tenant=7',
      pathWithQuery: '/hooks/contact/new/w%201?tenant=7',
    });
  });
});

describe('a delivery as the log shows it', () => {
  const ORG = '8333fa9f-0801-4965-8862-bab6bda8a17c';
  const OFFER = '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b';
  const WORKER = '9a13a48b-80b3-4dd1-9ee0-df8a3f1e8632';

  it('shows the request with the headers every attempt sends, and names those each attempt signs anew', () => {
    const call = offerResponseCall({ eventId: EVENT_ID, organisationId: ORG, offerId: OFFER, workerId: WORKER, response: 'applied', respondedAt: '2026-11-24T09:00:00.000Z' }, true);
    const request = requestAsSent({ ...call, webhookId: webhookIdFor(EVENT_ID, ORG), url: 'https://partner.example/hooks/offer/response' });
    expect(request).toEqual({
      method: 'POST',
      url: 'https://partner.example/hooks/offer/response',
      headers: { 'webhook-id': `${EVENT_ID}:${ORG}`, 'user-agent': 'AvailabilityPlatform-Webhooks/1.0', 'content-type': 'application/json', 'webhook-test': 'true' },
      perAttemptHeaders: ['webhook-timestamp', 'webhook-signature', 'webhook-key-id', 'Timestamp', 'Authorization'],
      body: call.body,
    });
    const get = requestAsSent({ ...contactAddedCall({ eventId: EVENT_ID, organisationId: ORG, workerId: WORKER }), webhookId: webhookIdFor(EVENT_ID, ORG), url: null });
    expect(get.headers).toEqual({ 'webhook-id': `${EVENT_ID}:${ORG}`, 'user-agent': 'AvailabilityPlatform-Webhooks/1.0' });
  });
});
