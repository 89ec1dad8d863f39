import { describe, expect, it } from '@jest/globals';
import { accepted } from '@availability/outbound-http';
import { VerificationPolicy, type VerificationProbes } from './verification-verdict.js';

const REFUSED: VerificationProbes = { wrongSecret: { status: 401 }, stale: { status: 401 } };

describe('accepted', () => {
  it('is any 2xx; a refusal of any status or no answer at all is not acceptance', () => {
    expect([200, 204, 299].map((status) => accepted({ status }))).toEqual([true, true, true]);
    expect([301, 400, 401, 403, 500].map((status) => accepted({ status }))).toEqual([false, false, false, false, false]);
    expect(accepted({ failed: 'timeout' })).toBe(false);
  });
});

describe('VerificationPolicy', () => {
  it('passes an endpoint that refuses both the forged and the stale call, strict or not', () => {
    expect(new VerificationPolicy(true).judge(REFUSED)).toEqual({ kind: 'verified' });
    expect(new VerificationPolicy(false).judge({ wrongSecret: { status: 403 }, stale: { failed: 'timeout' } })).toEqual({ kind: 'verified' });
  });

  it('refuses, when strict, an endpoint that accepted the call signed with the wrong secret, saying what to answer', () => {
    const verdict = new VerificationPolicy(true).judge({ ...REFUSED, wrongSecret: { status: 200 } });
    expect(verdict).toEqual({
      kind: 'refuse',
      message:
        'Your endpoint accepted a GET /test/auth signed with the wrong secret: it must answer 401 unless the signature verifies with your secret. ' +
        'The base URL and secret were not saved.',
    });
  });

  it('refuses, when strict, an endpoint that accepted a stale timestamp, naming the age and the tolerance', () => {
    const verdict = new VerificationPolicy(true).judge({ ...REFUSED, stale: { status: 204 } });
    expect(verdict.kind).toBe('refuse');
    expect('message' in verdict && verdict.message).toMatch(/Timestamp was 15 minutes old: it must answer 401 when the timestamp is more than 5 minutes from its clock/);
  });

  it('warns, when not strict, naming both problems of an endpoint that accepts anything', () => {
    const verdict = new VerificationPolicy(false).judge({ wrongSecret: { status: 200 }, stale: { status: 200 } });
    expect(verdict.kind).toBe('warn');
    const message = 'message' in verdict ? verdict.message : '';
    expect(message).toMatch(/^Your endpoint accepted a GET \/test\/auth signed with the wrong secret: .*; and your endpoint accepted a GET \/test\/auth whose Timestamp/);
    expect(message).toMatch(/a production platform refuses this set-up\.$/);
  });
});
