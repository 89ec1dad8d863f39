import { describe, expect, it } from '@jest/globals';
import type { NotificationServiceConfig } from '../config/notification-service.config.js';
import { DigestSweep } from './digest-sweep.js';
import type { EmailRepository } from './email.repository.js';
import type { EmailService } from './email.service.js';

const WINDOW_MS = 60_000;

/** A sweep over a database where `waiting` offers have answers waiting; its first `failures` reads fail. */
function sweepWith(waiting: string[], failures = 0) {
  const reads: Array<{ from: number; to: number }> = [];
  const queued: Array<{ offerIds: string[]; windowStart: number }> = [];
  const repository = {
    offersWithWaitingAnswers: async (from: Date, to: Date) => {
      reads.push({ from: from.getTime(), to: to.getTime() });
      if (reads.length <= failures) throw new Error('database unavailable');
      return waiting;
    },
  } as unknown as EmailRepository;
  const email = { queueDigests: async (offerIds: string[], windowStart: number) => void queued.push({ offerIds, windowStart }) } as unknown as EmailService;
  const sweep = new DigestSweep({ EMAIL_DIGEST_WINDOW_MS: WINDOW_MS } as NotificationServiceConfig, repository, email);
  return { sweep, reads, queued };
}

describe('DigestSweep', () => {
  it('queues the ended window’s digest for every offer with waiting answers, looking back a day at first and three windows after', async () => {
    const { sweep, reads, queued } = sweepWith(['offer-a', 'offer-b']);
    const end = 100 * WINDOW_MS;
    await sweep.sweep(end);
    await sweep.sweep(end + WINDOW_MS);
    expect(reads).toEqual([
      { from: end - 24 * 60 * 60 * 1000, to: end },
      { from: end + WINDOW_MS - 3 * WINDOW_MS, to: end + WINDOW_MS },
    ]);
    expect(queued).toEqual([
      { offerIds: ['offer-a', 'offer-b'], windowStart: end - WINDOW_MS },
      { offerIds: ['offer-a', 'offer-b'], windowStart: end },
    ]);
  });

  it('keeps the first look-back until a sweep succeeds', async () => {
    const { sweep, reads } = sweepWith([], 1);
    await expect(sweep.sweep(WINDOW_MS * 10)).rejects.toThrow('database unavailable');
    await sweep.sweep(WINDOW_MS * 11);
    expect(reads.map((read) => read.to - read.from)).toEqual([24 * 60 * 60 * 1000, 24 * 60 * 60 * 1000]);
  });
});
