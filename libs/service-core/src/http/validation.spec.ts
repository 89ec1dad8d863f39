import { describe, expect, it } from '@jest/globals';
import { CreateOfferDto } from '@availability/contracts';
import { ProblemException } from './problem.js';
import { validateBody } from './validation.js';

const valid = {
  createdByUserId: 'u1',
  title: 'Pickers',
  workerIds: ['w1'],
  events: [{ start: '2030-01-01T08:00:00Z', end: '2030-01-01T16:00:00Z' }],
};

function errorsOf(body: unknown) {
  try {
    validateBody(CreateOfferDto, body);
  } catch (error) {
    return (error as ProblemException).problem.errors;
  }
  throw new Error('expected a validation problem');
}

describe('validateBody', () => {
  it('returns a DTO instance with nested instances and unknown properties dropped', () => {
    const dto = validateBody(CreateOfferDto, { ...valid, surprise: 1 });
    expect(dto).toBeInstanceOf(CreateOfferDto);
    expect(dto).not.toHaveProperty('surprise');
    expect(dto.events[0].constructor.name).toBe('OfferTimeSlotDto');
  });

  it('matches property names regardless of case at every level', () => {
    const dto = validateBody(CreateOfferDto, {
      CREATEDBYUSERID: 'u1',
      Title: 'Pickers',
      WorkerIDs: ['w1'],
      eVeNtS: [{ START: '2030-01-01T08:00:00Z', End: '2030-01-01T16:00:00Z' }],
    });
    expect(dto.createdByUserId).toBe('u1');
    expect(dto.events[0]).toMatchObject({ start: '2030-01-01T08:00:00Z', end: '2030-01-01T16:00:00Z' });
  });

  it('reports nested field paths', () => {
    expect(errorsOf({ ...valid, events: [{ start: 'x', end: '2030-01-01T16:00:00Z' }] })).toEqual({
      'events[0].start': expect.arrayContaining(['start must be an ISO 8601 timestamp']),
    });
  });

  it('reports keys that differ only in case as ambiguous', () => {
    expect(errorsOf({ ...valid, TITLE: 'Other' })).toEqual({ title: [expect.stringContaining('more than once')] });
  });

  it.each([[null], [[]], ['text'], [42]])('rejects a body that is not an object: %p', (body) => {
    expect(errorsOf(body)).toEqual({ body: ['must be a JSON object'] });
  });

  it('reports a value past its declared size alone, before anything else looks at it', () => {
    // 100,000 copies of one id: only the size is reported, so the uniqueness check never ran on them.
    expect(errorsOf({ ...valid, workerIds: Array.from({ length: 100_000 }, () => 'w') })).toEqual({
      workerIds: ['workerIds must contain no more than 10000 elements'],
    });
    expect(errorsOf({ ...valid, title: ' '.repeat(1_000_000) })).toEqual({ title: ['title must be shorter than or equal to 200 characters'] });
    expect(errorsOf({ ...valid, workerIds: ['w1', 'x'.repeat(100_000)] })).toEqual({
      workerIds: ['each value in workerIds must be shorter than or equal to 64 characters'],
    });
    expect(errorsOf({ ...valid, events: [{ start: '2'.repeat(100_000), end: '2030-01-01T16:00:00Z' }] })).toEqual({
      'events[0].start': ['start must be shorter than or equal to 40 characters'],
    });
  });

  it('counts characters as class-validator does within the bound: emoji with variation selectors fit', () => {
    const dto = validateBody(CreateOfferDto, { ...valid, title: '\u2764\ufe0f'.repeat(200) });
    expect(dto.title).toHaveLength(400);
  });

  it('finds a repeated worker among the most allowed', () => {
    const workerIds = Array.from({ length: 10_000 }, (_, i) => `w${i}`);
    expect(validateBody(CreateOfferDto, { ...valid, workerIds }).workerIds).toHaveLength(10_000);
    expect(errorsOf({ ...valid, workerIds: [...workerIds.slice(1), 'w5'] })).toEqual({ workerIds: ['workerIds must not repeat a worker'] });
  });
});
