import { describe, expect, it } from '@jest/globals';
import { ProblemException } from '@availability/service-core';
import type { EndpointActivityRow } from '../delivery/deliveries.repository.js';
import { deliveryListFilter, timestampParam } from './delivery-query.js';
import { endpointState } from './endpoint-state.js';

function fieldErrors(read: () => unknown): Record<string, string[]> | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    if (!(error instanceof ProblemException)) throw error;
    expect(error.problem.status).toBe(400);
    return error.problem.errors;
  }
}

describe('delivery list filters', () => {
  it('reads status, event type, event id, a time window and paging', () => {
    expect(
      deliveryListFilter(
        { status: 'failed', eventType: 'contact-added', eventId: '9ab9a347-8e54-490e-9949-a1f91401a955', from: '2026-11-01T00:00:00Z', to: '2026-11-02', limit: '10', before: '99' },
        200,
      ),
    ).toEqual({
      status: 'failed',
      eventSubject: 'contacts.added',
      eventId: '9ab9a347-8e54-490e-9949-a1f91401a955',
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
      limit: 10,
      before: 99,
    });
    expect(deliveryListFilter({}, 200)).toEqual({
      limit: 50,
      before: undefined,
      eventId: undefined,
      webhookId: undefined,
      offerId: undefined,
      workerId: undefined,
      status: undefined,
      eventSubject: undefined,
      from: undefined,
      to: undefined,
    });
    expect(deliveryListFilter({ eventType: 'offer-response' }, 200).eventSubject).toBe('offers.response.recorded');
  });

  it('searches by offer, worker or webhook id; a webhook id is read through its event', () => {
    const offerId = '0b9e3c1a-5d7f-4e2a-9c8b-6a5f4e3d2c1b';
    expect(deliveryListFilter({ offerId }, 200).offerId).toBe(offerId);
    expect(deliveryListFilter({ workerId: offerId }, 200).workerId).toBe(offerId);
    const webhookId = '9ab9a347-8e54-490e-9949-a1f91401a955:8333fa9f-0801-4965-8862-bab6bda8a17c';
    expect(deliveryListFilter({ webhookId }, 200)).toMatchObject({ webhookId, eventId: '9ab9a347-8e54-490e-9949-a1f91401a955' });
    expect(fieldErrors(() => deliveryListFilter({ offerId: 'x' }, 200))).toEqual({ offerId: ['must be a uuid'] });
    expect(fieldErrors(() => deliveryListFilter({ workerId: 'x' }, 200))).toEqual({ workerId: ['must be a uuid'] });
    expect(fieldErrors(() => deliveryListFilter({ webhookId: 'x:y' }, 200))).toEqual({ webhookId: ['must be <event id>:<organisation id>, as the webhook-id header'] });
    expect(fieldErrors(() => deliveryListFilter({ webhookId, eventId: offerId }, 200))).toEqual({ webhookId: ['names another event than eventId'] });
  });

  it('refuses each malformed parameter, naming it', () => {
    expect(fieldErrors(() => deliveryListFilter({ status: 'lost' }, 200))).toEqual({ status: ['must be one of pending, succeeded, failed, dead, skipped, superseded'] });
    expect(fieldErrors(() => deliveryListFilter({ eventType: 'offers.response.recorded' }, 200))).toEqual({ eventType: ['must be one of offer-response, contact-added'] });
    expect(fieldErrors(() => deliveryListFilter({ eventId: 'x' }, 200))).toEqual({ eventId: ['must be a uuid'] });
    expect(fieldErrors(() => deliveryListFilter({ status: ['failed', 'dead'] }, 200))).toEqual({ status: ['must be given once, as a single value'] });
    expect(Object.keys(fieldErrors(() => deliveryListFilter({ limit: '201' }, 200)) ?? {})).toEqual(['limit']);
    expect(fieldErrors(() => deliveryListFilter({ from: '2026-11-02T00:00:00Z', to: '2026-11-02T00:00:00Z' }, 200))).toEqual({ to: ['must be after from'] });
  });

  it('takes times with their offset (or a date alone), never a time the server would read in its own zone', () => {
    expect(timestampParam('from', '2026-11-24T10:00:00+01:00')).toEqual(new Date('2026-11-24T09:00:00Z'));
    expect(timestampParam('from', '2026-11-24T09:00:00.123Z')).toEqual(new Date('2026-11-24T09:00:00.123Z'));
    expect(timestampParam('from', undefined)).toBeUndefined();
    for (const bad of ['2026-11-24T09:00:00', '2026-02-30T00:00:00Z', 'yesterday', '1764000000', '', `2026-11-24T09:00:00${'0'.repeat(40)}Z`]) {
      expect([bad, Object.keys(fieldErrors(() => timestampParam('from', bad)) ?? {})]).toEqual([bad, ['from']]);
    }
  });
});

describe('endpoint state', () => {
  const quiet: EndpointActivityRow = {
    baseUrl: null,
    failingSince: null,
    disabledAt: null,
    disabledReason: null,
    heldCount: 0,
    lastSuccessAt: '2026-11-24T08:59:00.000Z',
    lastFailureAt: null,
    lastFailureError: null,
  };

  it('is healthy, failing, circuit-open or disabled, the worse winning', () => {
    expect(endpointState('org-1', quiet, false)).toMatchObject({ organisationId: 'org-1', state: 'healthy', circuitOpen: false, disabled: false, heldCount: 0 });
    const failing = { ...quiet, failingSince: '2026-11-24T08:59:30.000Z', lastFailureAt: '2026-11-24T08:59:59.000Z', lastFailureError: 'HTTP 503' };
    expect(endpointState('org-1', failing, false)).toMatchObject({ state: 'failing', circuitOpen: false, lastFailureError: 'HTTP 503' });
    expect(endpointState('org-1', { ...failing, heldCount: 7 }, false)).toMatchObject({ state: 'circuit-open', circuitOpen: true, heldCount: 7 });
    // Nothing held yet, but this process's breaker is open.
    expect(endpointState('org-1', failing, true)).toMatchObject({ state: 'circuit-open', circuitOpen: true, heldCount: 0 });
    const disabled = { ...failing, failingSince: null, disabledAt: '2026-11-24T09:00:00.000Z', disabledReason: 'https://x.example answered 410 Gone' };
    expect(endpointState('org-1', { ...disabled, heldCount: 3 }, true)).toMatchObject({
      state: 'disabled',
      disabled: true,
      disabledReason: 'https://x.example answered 410 Gone',
    });
  });

  it('gives no reason once the endpoint is enabled again', () => {
    expect(endpointState('org-1', { ...quiet, disabledReason: 'old reason' }, false).disabledReason).toBeNull();
  });
});
