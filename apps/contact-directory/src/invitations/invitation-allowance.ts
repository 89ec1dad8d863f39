import { ProblemException } from '@availability/service-core';

const DAY_MS = 24 * 3600 * 1000;

/**
 * How many invitation e-mails an organisation may send a day: `perDay` (0: no limit), counted per
 * calendar day in UTC, so every instance agrees on the day and an operator can say when it resets.
 * Decides the day and the answer past the allowance; the count itself is the database's
 * (InvitationsSentRepository), where concurrent requests are counted one after another.
 */
export class InvitationAllowance {
  constructor(
    readonly perDay: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get limited(): boolean {
    return this.perDay > 0;
  }

  /** The day invitations sent now count against, `YYYY-MM-DD` (UTC). */
  today(): string {
    return this.now().toISOString().slice(0, 10);
  }

  /** The 429 for a request that would send `wanted` more when `sent` went out today: Retry-After is the next UTC midnight. */
  refusal(sent: number, wanted: number): ProblemException {
    const now = this.now().getTime();
    const seconds = Math.max(1, Math.ceil((Math.floor(now / DAY_MS) * DAY_MS + DAY_MS - now) / 1000));
    const left = Math.max(0, this.perDay - sent);
    const detail =
      wanted > this.perDay
        ? `This request would send ${wanted} invitations; the organisation may send at most ${this.perDay} a day (UTC). Invite fewer at once.`
        : `The organisation may send ${this.perDay} invitations a day (UTC) and has ${left} left today; this request would send ${wanted}. Invite fewer, or try again after midnight UTC.`;
    return new ProblemException(429, 'invitation-limit-reached', detail, undefined, { 'retry-after': String(seconds) });
  }
}
