import { describe, expect, it } from '@jest/globals';
import { type MailPace, type MailPaceDecision, SignInMailPace } from './sign-in-mail-pace.js';

const NOTHING_YET: MailPace = { windowStartedAt: null, mailsInWindow: 0, lastMailAt: null };
const MINUTE = 60_000;
const start = Date.parse('2026-11-25T09:00:00Z');
const at = (ms: number) => new Date(start + ms);

/** Asks at each of `times` (ms after start), one after the other; what each was told, and the pace after. */
function askAt(pacer: SignInMailPace, times: number[], pace = NOTHING_YET): { decisions: MailPaceDecision[]; pace: MailPace } {
  const decisions: MailPaceDecision[] = [];
  for (const time of times) {
    const decision = pacer.decide(pace, at(time));
    decisions.push(decision);
    if (decision.send) pace = decision.pace;
  }
  return { decisions, pace };
}

const delays = (decisions: MailPaceDecision[]) => decisions.map((decision) => (decision.send ? decision.delayMs : 'nothing'));

describe('SignInMailPace', () => {
  const pacer = new SignInMailPace({ promptPerHour: 3, slowIntervalMs: 5 * MINUTE });

  it('sends the first e-mails of the hour at once', () => {
    expect(delays(askAt(pacer, [0, 1_000, 2_000]).decisions)).toEqual([0, 0, 0]);
  });

  it('past them, never refuses: the next goes one interval after the last, and requests meanwhile add nothing', () => {
    const { decisions, pace } = askAt(pacer, [0, 1_000, 2_000, 3_000, 4_000, 60_000, 4 * MINUTE]);
    expect(delays(decisions)).toEqual([0, 0, 0, 5 * MINUTE - 1_000, 'nothing', 'nothing', 'nothing']);
    expect(pace.lastMailAt).toEqual(at(2_000 + 5 * MINUTE));
  });

  it('a flood of requests gets the mailbox the prompt e-mails and one an interval, and the owner a link within one interval', () => {
    // Every second for an hour, from strangers and, at any moment, the owner.
    const times = Array.from({ length: 3600 }, (_, i) => i * 1_000);
    const { decisions } = askAt(pacer, times);
    const sent = decisions.flatMap((decision, i) => (decision.send ? [times[i] + decision.delayMs] : []));
    expect(sent.length).toBeLessThanOrEqual(3 + 12);
    for (let i = 0; i < times.length; i += 1) {
      const next = sent.find((time) => time >= times[i]);
      expect([times[i], next !== undefined && next - times[i] <= 5 * MINUTE]).toEqual([times[i], true]);
    }
  });

  it('an e-mail long after the last goes at once, even past the hourly number', () => {
    const { decisions } = askAt(pacer, [0, 1_000, 2_000, 20 * MINUTE, 26 * MINUTE]);
    expect(delays(decisions)).toEqual([0, 0, 0, 0, 0]);
  });

  it('a new hour starts with its own prompt e-mails, whatever was scheduled', () => {
    const { pace } = askAt(pacer, [0, 1_000, 2_000, 3_000]);
    const { decisions, pace: after } = askAt(pacer, [61 * MINUTE, 61 * MINUTE + 1], pace);
    expect(delays(decisions)).toEqual([0, 0]);
    expect(after).toEqual({ windowStartedAt: at(61 * MINUTE), mailsInWindow: 2, lastMailAt: at(61 * MINUTE + 1) });
  });

  it('keeps the time of an e-mail still to go when a new hour sends one at once', () => {
    const scheduled: MailPace = { windowStartedAt: at(0), mailsInWindow: 4, lastMailAt: at(62 * MINUTE) };
    const decision = pacer.decide(scheduled, at(60 * MINUTE));
    expect(decision).toEqual({ send: true, delayMs: 0, pace: { windowStartedAt: at(60 * MINUTE), mailsInWindow: 1, lastMailAt: at(62 * MINUTE) } });
  });

  it('0 e-mails an hour means no pacing', () => {
    const unpaced = new SignInMailPace({ promptPerHour: 0, slowIntervalMs: 5 * MINUTE });
    expect(delays(askAt(unpaced, [0, 1, 2, 3, 4, 5]).decisions)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
