import type { FirstAttemptRecord } from '../src/delivery/deliveries.repository.js';

/** A succeeded first attempt of `eventId` for organisation `org-a`, as the Deliverer hands it to the log. */
export function firstAttemptRecord(eventId: string, statusCode = 200): FirstAttemptRecord {
  return {
    delivery: { eventId, organisationId: 'org-a', eventSubject: 'offers.response.recorded', webhookId: `${eventId}:org-a`, method: 'POST', path: '/offer/response', body: '{}', url: null, status: 'pending' },
    startedAt: new Date(),
    durationMs: 3,
    statusCode,
    errorKind: null,
    errorMessage: null,
    responseExcerpt: null,
    status: 'succeeded',
    nextAttemptAt: null,
    url: 'http://integrator.example/offer/response',
  };
}
