const HOUR_MS = 3_600_000;

/** What is remembered of an address's sign-in e-mails (nothing yet: nulls and 0). */
export interface MailPace {
  /** When its current hour of e-mails began. */
  windowStartedAt: Date | null;
  /** E-mails sent or scheduled since then. */
  mailsInWindow: number;
  /** When its latest e-mail went, or is to go (possibly later than now). */
  lastMailAt: Date | null;
}

export interface MailPaceSettings {
  /** E-mails an hour sent as soon as asked for (0: every one, no pacing). */
  promptPerHour: number;
  /** Past those, one e-mail at most every this many milliseconds. */
  slowIntervalMs: number;
}

/**
 * Send now (`delayMs` 0) or that much later, and remember `pace`; or send nothing, because an e-mail
 * already scheduled will bring the address a fresh link.
 */
export type MailPaceDecision = { send: true; delayMs: number; pace: MailPace } | { send: false };

/**
 * How often one address is e-mailed sign-in links, whoever asks: never refused, only slowed. The
 * first `promptPerHour` e-mails of an hour go at once; past them, one goes every `slowIntervalMs`,
 * and a request while one is scheduled adds nothing (that e-mail brings the link). So a stranger
 * asking again and again costs the mailbox at most `promptPerHour` plus one e-mail per interval an
 * hour, and the owner, asking at the same time, has a working link within one interval.
 */
export class SignInMailPace {
  constructor(private readonly settings: MailPaceSettings) {}

  decide(pace: MailPace, now: Date): MailPaceDecision {
    const nowMs = now.getTime();
    const lastMs = pace.lastMailAt?.getTime() ?? Number.NEGATIVE_INFINITY;
    const latest = new Date(Math.max(nowMs, lastMs));
    const windowOpen = pace.windowStartedAt !== null && nowMs - pace.windowStartedAt.getTime() < HOUR_MS;
    if (this.settings.promptPerHour === 0 || !windowOpen) {
      return { send: true, delayMs: 0, pace: { windowStartedAt: now, mailsInWindow: 1, lastMailAt: latest } };
    }
    if (pace.mailsInWindow < this.settings.promptPerHour) {
      return { send: true, delayMs: 0, pace: { ...pace, mailsInWindow: pace.mailsInWindow + 1, lastMailAt: latest } };
    }
    if (lastMs > nowMs) return { send: false };
    const at = Math.max(nowMs, lastMs + this.settings.slowIntervalMs);
    return { send: true, delayMs: at - nowMs, pace: { ...pace, mailsInWindow: pace.mailsInWindow + 1, lastMailAt: new Date(at) } };
  }
}
