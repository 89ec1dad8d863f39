import { describe, expect, it } from '@jest/globals';
import { InvitationAllowance } from './invitation-allowance.js';

const at = (iso: string) => () => new Date(iso);

describe('InvitationAllowance', () => {
  it('counts by calendar day in UTC', () => {
    expect(new InvitationAllowance(200, at('2026-03-01T23:59:59.999Z')).today()).toBe('2026-03-01');
    expect(new InvitationAllowance(200, at('2026-03-02T00:00:00.000Z')).today()).toBe('2026-03-02');
    // Midnight somewhere else is not the day's end.
    expect(new InvitationAllowance(200, at('2026-03-01T23:30:00.000-05:00')).today()).toBe('2026-03-02');
  });

  it('0 is no limit', () => {
    expect(new InvitationAllowance(0).limited).toBe(false);
    expect(new InvitationAllowance(1).limited).toBe(true);
  });

  it('refuses with a 429 whose Retry-After is the next UTC midnight, at least a second away', () => {
    const refusal = new InvitationAllowance(200, at('2026-03-01T23:00:00.000Z')).refusal(190, 20);
    expect(refusal.getStatus()).toBe(429);
    expect(refusal.problem.type).toBe('https://availability.example/problems/invitation-limit-reached');
    expect(refusal.headers).toEqual({ 'retry-after': '3600' });
    expect(refusal.problem.detail).toBe(
      'The organisation may send 200 invitations a day (UTC) and has 10 left today; this request would send 20. Invite fewer, or try again after midnight UTC.',
    );
    expect(new InvitationAllowance(200, at('2026-03-01T23:59:59.900Z')).refusal(200, 1).headers).toEqual({ 'retry-after': '1' });
    expect(new InvitationAllowance(200, at('2026-03-01T00:00:00.000Z')).refusal(200, 1).headers).toEqual({ 'retry-after': '86400' });
  });

  it('says so when one request alone is more than a day allows', () => {
    expect(new InvitationAllowance(50, at('2026-03-01T12:00:00.000Z')).refusal(0, 80).problem.detail).toBe(
      'This request would send 80 invitations; the organisation may send at most 50 a day (UTC). Invite fewer at once.',
    );
  });
});
