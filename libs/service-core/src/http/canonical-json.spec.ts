import { describe, expect, it } from '@jest/globals';
import { CreateOfferDto } from '@availability/contracts';
import { bodyFingerprint, canonicalJson } from './canonical-json.js';
import { validateBody } from './validation.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'x', c: null }, 2] })).toBe('{"a":[{"c":null,"d":"x"},2],"b":1}');
    expect(canonicalJson([3, 1])).not.toBe(canonicalJson([1, 3]));
  });

  it('leaves out undefined properties and writes scalars as JSON does', () => {
    expect(canonicalJson({ a: undefined, b: 'é"\n' })).toBe(JSON.stringify({ b: 'é"\n' }));
    expect(canonicalJson([undefined])).toBe('[null]');
    expect(canonicalJson(1.5)).toBe('1.5');
  });
});

describe('bodyFingerprint of a validated body', () => {
  const body = {
    createdByUserId: 'u1',
    title: 'Pickers',
    workerIds: ['w1', 'w2'],
    events: [{ start: '2030-01-01T08:00:00Z', end: '2030-01-01T16:00:00Z' }],
  };
  const fingerprint = (raw: object) => bodyFingerprint(validateBody(CreateOfferDto, raw));

  it('is the same whatever the order or letter case of property names, and with unknown properties', () => {
    const reordered = { events: [{ END: body.events[0].end, Start: body.events[0].start }], WorkerIds: body.workerIds, title: body.title, createdbyuserid: 'u1', extra: 1 };
    expect(fingerprint(reordered)).toBe(fingerprint(body));
  });

  it('differs when a value or the order of an array differs', () => {
    expect(fingerprint({ ...body, title: 'Packers' })).not.toBe(fingerprint(body));
    expect(fingerprint({ ...body, workerIds: ['w2', 'w1'] })).not.toBe(fingerprint(body));
  });
});
