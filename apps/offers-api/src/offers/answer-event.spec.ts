import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { EventSubject, type WorkerAnswer } from '@availability/contracts';
import { InvalidEventError } from '@availability/messaging';
import { runInTrace } from '@availability/service-core';
import { answerEvent } from './answer-event.js';

describe('answerEvent', () => {
  const at = new Date('2026-11-24T10:00:00.000Z');

  it('gives the statement a checked event id, subject, time and the request’s trace', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const event = await runInTrace({ traceparent, requestId: 'request-1' }, async () => answerEvent(randomUUID(), randomUUID(), 'applied', at));
    expect(event).toEqual({
      eventId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      subject: EventSubject.OfferResponseRecorded,
      at: '2026-11-24T10:00:00.000Z',
      traceparent,
      requestId: 'request-1',
    });
    expect(answerEvent(randomUUID(), randomUUID(), 'applied', at).eventId).not.toBe(event.eventId);
  });

  it('refuses, before anything is written, what the event’s schema refuses', () => {
    expect(() => answerEvent('off_1', randomUUID(), 'applied', at)).toThrow(InvalidEventError);
    expect(() => answerEvent(randomUUID(), '', 'applied', at)).toThrow(/\/workerId/);
    expect(() => answerEvent(randomUUID(), randomUUID(), 'awaiting' as WorkerAnswer, at)).toThrow(/\/response/);
  });
});
