import { describe, expect, it } from '@jest/globals';
import type { OfferCreatedEvent, OfferResponseRecordedEvent } from '@availability/contracts';
import type { JobQueues } from '@availability/jobs';
import type { RequestReply } from '@availability/messaging';
import type { NotificationServiceConfig } from '../config/notification-service.config.js';
import type { EmailRepository } from './email.repository.js';
import type { Mailer } from './mailer.js';
import { answersReadEveryMs, EmailService, NotReadyError } from './email.service.js';

/** The read model as the repository keeps it, counting reads; jobs are only recorded. */
function serviceWith(offers: Record<string, string | null>) {
  const reads: string[] = [];
  const jobs: string[] = [];
  const recorded: string[] = [];
  const repository = {
    recordOffer: async (event: OfferCreatedEvent) => void (offers[event.offerId] = event.notifyEmailAddress ?? null),
    offer: async (offerId: string) => {
      reads.push(offerId);
      return offerId in offers ? { offerId, notifyEmailAddress: offers[offerId] } : undefined;
    },
    recordAnswers: async (events: OfferResponseRecordedEvent[]) => void recorded.push(...events.map((event) => event.offerId)),
  } as unknown as EmailRepository;
  const queues = {
    add: async (_queue: string, _name: string, _data: unknown, options: { jobId: string }) => void jobs.push(options.jobId),
    addBulk: async (_queue: string, added: Array<{ opts: { jobId: string } }>) => void jobs.push(...added.map((job) => job.opts.jobId)),
  } as unknown as JobQueues;
  const config = { EMAIL_DIGEST_WINDOW_MS: 60_000, EMAIL_ATTEMPTS: 3, EMAIL_BACKOFF_MS: 1_000 } as NotificationServiceConfig;
  return { service: new EmailService(config, queues, repository, {} as Mailer, {} as RequestReply), reads, jobs, recorded };
}

const answer = (offerId: string) => ({ eventId: `e-${offerId}`, offerId, workerId: 'w1', response: 'applied' }) as OfferResponseRecordedEvent;

describe('EmailService answers', () => {
  it('reads an offer’s notify address once, not once per answer, and records only the answers someone is told of', async () => {
    const { service, reads, jobs, recorded } = serviceWith({ quiet: null, watched: 'ops@example.com' });
    for (let i = 0; i < 5; i += 1) await service.onAnswer(answer('quiet'), 1);
    for (let i = 0; i < 3; i += 1) await service.onAnswer(answer('watched'), 1);
    expect(reads).toEqual(['quiet', 'watched']);
    expect(recorded).toEqual(['watched', 'watched', 'watched']);
    expect(jobs).toEqual([]); // the digest is queued by the sweep when the window ends
  });

  it('queues one digest per offer and window, with ids a second sweep repeats', async () => {
    const { service, jobs } = serviceWith({});
    await service.queueDigests(['a', 'b'], 120_000);
    await service.queueDigests(['a'], 120_000);
    expect(jobs).toEqual(['digest.a.120000', 'digest.b.120000', 'digest.a.120000']);
  });

  it('knows a recorded offer without reading it back, and still waits for an offer it has not seen', async () => {
    const { service, reads } = serviceWith({});
    await service.onOfferCreated({ offerId: 'new', notifyEmailAddress: null } as unknown as OfferCreatedEvent);
    await service.onAnswer(answer('new'), 1);
    expect(reads).toEqual([]);
    await expect(service.onAnswer(answer('unknown'), 1)).rejects.toBeInstanceOf(NotReadyError);
  });
});

describe('EmailService sign-in links', () => {
  const link = (code: string) => ({ label: 'Acme', code: code.repeat(43) });

  it('queues the e-mail at once, or after the delay contact-directory asks for, never kept once done', async () => {
    const added: Array<{ jobId: string; delay?: number; removeOnComplete?: unknown; removeOnFail?: unknown }> = [];
    const queues = { add: async (_queue: string, _name: string, _data: unknown, options: (typeof added)[number]) => void added.push(options) } as unknown as JobQueues;
    const config = { EMAIL_ATTEMPTS: 3, EMAIL_BACKOFF_MS: 1_000, PORTAL_URL: 'https://portal.test' } as NotificationServiceConfig;
    const service = new EmailService(config, queues, {} as EmailRepository, {} as Mailer, {} as RequestReply);
    await service.sendSignInLinks({ to: 'sam@acme.test', audience: 'portal', links: [link('a')], expiresInMinutes: 15 });
    await service.sendSignInLinks({ to: 'sam@acme.test', audience: 'portal', links: [link('b')], expiresInMinutes: 15, delayMs: 120_000 });
    expect(added.map(({ delay, removeOnComplete, removeOnFail }) => ({ delay, removeOnComplete, removeOnFail }))).toEqual([
      { delay: 0, removeOnComplete: true, removeOnFail: true },
      { delay: 120_000, removeOnComplete: true, removeOnFail: true },
    ]);
    await expect(service.sendSignInLinks({ to: 'sam@acme.test', audience: 'portal', links: [link('c')], expiresInMinutes: 15, delayMs: -1 })).rejects.toThrow(/not a SendSignInLinks request/);
  });
});

describe('answersReadEveryMs', () => {
  it('reads answers every second, or four times in a digest window shorter than four seconds', () => {
    expect([3_600_000, 60_000, 4_000, 2_000, 1_000, 2].map(answersReadEveryMs)).toEqual([1_000, 1_000, 1_000, 500, 250, 1]);
  });
});
