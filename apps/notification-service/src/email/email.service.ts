import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { type Job, type JobsOptions, UnrecoverableError } from 'bullmq';
import { Value } from '@sinclair/typebox/value';
import {
  DirectoryPattern,
  type InviteCreatedEvent,
  type OfferCreatedEvent,
  type OfferResponseRecordedEvent,
  type ResolveOrganisationContactsReply,
  type ResolveOrganisationContactsRequest,
  SendSignInLinksRequest,
  type SendSignInLinksReply,
  type WebhookEndpointDisabledEvent,
} from '@availability/contracts';
import { JobQueues, QueueName } from '@availability/jobs';
import { RequestReply } from '@availability/messaging';
import { MicroBatcher, TtlCache } from '@availability/service-core';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import {
  answersDigestEmail,
  digestJobId,
  inviteEmail,
  inviteLinkUrl,
  type MailMessage,
  offerClosedEmail,
  type OfferOutcome,
  signInJobId,
  signInLinksEmail,
  webhookDisabledEmail,
} from './email-content.js';
import { EmailRepository } from './email.repository.js';
import { isPermanentSmtpFailure, Mailer } from './mailer.js';

export type EmailJob =
  | { kind: 'send'; id: string; message: MailMessage }
  | { kind: 'digest'; offerId: string }
  | { kind: 'offer-closed'; offerId: string; eventId: string; outcome: OfferOutcome };

/**
 * The id an e-mail is kept under in `pending_email` (its first job's id), or none: digests are found
 * again from their answers (DigestSweep).
 */
function pendingEmailId(job: EmailJob): string | undefined {
  if (job.kind === 'send') return job.id;
  if (job.kind === 'offer-closed') return job.eventId;
  return undefined;
}

/** The event arrived before the offers.created it depends on; JetStream redelivers it later. */
export class NotReadyError extends Error {}

/** Deliveries of an event whose offer is still unknown before we stop waiting for offers.created. */
const MAX_WAIT_DELIVERIES = 6;
/** How long an offer's notify address is remembered: it never changes, so only memory bounds it. */
const NOTIFY_ADDRESS_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How often answers are read from the stream. Nobody waits on an answer here: it is needed when its
 * digest window ends, so answers are read in batches (a second's worth, or a quarter of a shorter
 * window) rather than each as it comes.
 */
export function answersReadEveryMs(digestWindowMs: number): number {
  return Math.max(1, Math.min(1_000, Math.floor(digestWindowMs / 4)));
}

/**
 * E-mail: invitations, answers to an offer's notify address (digested per window), the offer's
 * completion or withdrawal, and disabled-webhook notices to an organisation's admins. Every e-mail
 * is a BullMQ job with a deterministic id, so a redelivered event never sends a second one.
 * Answers are only recorded: their digests are queued by DigestSweep. Every other e-mail but a
 * sign-in link is kept in `pending_email` until its job finishes, so EmailRecoverySweep can queue
 * again one whose job Redis lost.
 */
@Injectable()
export class EmailService implements OnApplicationBootstrap {
  private readonly logger = new Logger('EmailService');
  /**
   * Offer id → its notify address (null: none). Set when an offer is recorded and never changed, so
   * the answers to an offer nobody is told about cost no read of the read model each.
   */
  private readonly notifyAddresses = new TtlCache<string, string | null>(100_000);
  /** The answers of one read go into the database together. */
  private readonly answers = new MicroBatcher<OfferResponseRecordedEvent, void>((events) => this.repository.recordAnswers(events).then(() => events.map(() => undefined)));

  constructor(
    private readonly config: NotificationServiceConfig,
    private readonly jobs: JobQueues,
    private readonly repository: EmailRepository,
    private readonly mailer: Mailer,
    private readonly rpc: RequestReply,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.process<EmailJob>(QueueName.Email, (job) => this.runJob(job), { concurrency: this.config.EMAIL_WORKER_CONCURRENCY });
  }

  async onInviteCreated(event: InviteCreatedEvent): Promise<void> {
    await this.enqueue(event.eventId, { kind: 'send', id: event.eventId, message: inviteEmail(event, inviteLinkUrl(this.config)) });
  }

  async onOfferCreated(event: OfferCreatedEvent): Promise<void> {
    await this.repository.recordOffer(event);
    this.notifyAddresses.set(event.offerId, event.notifyEmailAddress ?? null, NOTIFY_ADDRESS_TTL_MS);
  }

  /** An answer waits in the database for its window's digest, which DigestSweep queues when the window ends. */
  async onAnswer(event: OfferResponseRecordedEvent, deliveryCount: number): Promise<void> {
    if (!(await this.notifyAddressOf(event.offerId, deliveryCount))) return;
    await this.answers.add(event);
  }

  /** The digests of the window that started at `windowStart`, one job per offer (ids de-duplicate repeats). */
  async queueDigests(offerIds: string[], windowStart: number): Promise<void> {
    await this.jobs.addBulk(
      QueueName.Email,
      offerIds.map((offerId) => ({ name: 'digest', data: { kind: 'digest', offerId } satisfies EmailJob, opts: this.jobOptions(digestJobId(offerId, windowStart)) })),
    );
  }

  /**
   * The closing e-mail lists the answers not e-mailed yet. It is written two answer reads after the
   * offer closed, so the answers given before that have been read (answersReadEveryMs).
   */
  async onOfferClosed(event: { eventId: string; offerId: string }, outcome: OfferOutcome, deliveryCount: number): Promise<void> {
    if (!(await this.notifyAddressOf(event.offerId, deliveryCount))) return;
    const delay = 2 * answersReadEveryMs(this.config.EMAIL_DIGEST_WINDOW_MS);
    await this.enqueue(event.eventId, { kind: 'offer-closed', offerId: event.offerId, eventId: event.eventId, outcome }, { delay });
  }

  async onWebhookEndpointDisabled(event: WebhookEndpointDisabledEvent): Promise<void> {
    const contacts = await this.rpc.request<ResolveOrganisationContactsRequest, ResolveOrganisationContactsReply>(
      DirectoryPattern.ResolveOrganisationContacts,
      { organisationId: event.organisationId },
      this.config.DIRECTORY_TIMEOUT_MS,
    );
    if (contacts.adminEmailAddresses.length === 0) {
      this.logger.warn(`organisation ${event.organisationId} has no admin to tell that its webhooks were disabled`);
      return;
    }
    await this.enqueue(event.eventId, {
      kind: 'send',
      id: event.eventId,
      message: webhookDisabledEmail(contacts.adminEmailAddresses, contacts.name, event.baseUrl, event.reason),
    });
  }

  /**
   * contact-directory's request for a sign-in e-mail, sent at once or after `delayMs` (an address
   * asked for often is paced). The job holds the codes, so it leaves Redis as soon as it is done
   * (sent, or given up), and its id is derived from the codes.
   */
  async sendSignInLinks(request: unknown): Promise<SendSignInLinksReply> {
    if (!Value.Check(SendSignInLinksRequest, request)) throw new Error('not a SendSignInLinks request');
    const jobId = signInJobId(request);
    await this.enqueue(jobId, { kind: 'send', id: jobId, message: signInLinksEmail(request, this.config.PORTAL_URL) }, { keep: false, delay: request.delayMs ?? 0 });
    return { queued: true, jobId };
  }

  /** E-mails whose jobs were lost (claimed by the recovery sweep), queued again under `recoveryJobId`, each kept pending as before. */
  async requeue(emails: ReadonlyArray<{ jobId: string; recoveryJobId: string; job: EmailJob }>): Promise<void> {
    await this.jobs.addBulk(
      QueueName.Email,
      emails.map(({ recoveryJobId, job }) => ({ name: job.kind, data: job, opts: this.jobOptions(recoveryJobId) })),
    );
  }

  /**
   * An attempt of a kept e-mail's job first takes the e-mail for as long as a send may last
   * (SMTP_TIMEOUT_MS), so the recovery sweep does not queue it again meanwhile; a job with nothing
   * to do (the e-mail sent, or queued again under another job) finishes without sending.
   */
  async runJob(job: Job<EmailJob>): Promise<void> {
    const pendingId = job.opts.removeOnComplete === true ? undefined : pendingEmailId(job.data);
    if (pendingId && !(await this.repository.beginPendingEmailAttempt(pendingId, job.id ?? pendingId, this.config.SMTP_TIMEOUT_MS))) {
      this.logger.log(`e-mail job ${job.id}: already sent, or queued again under another job; nothing to do`);
      return;
    }
    try {
      await this.send(job);
    } catch (error) {
      const permanent = isPermanentSmtpFailure(error);
      const last = permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      if (pendingId) await (last ? this.repository.forgetPendingEmail(pendingId) : this.repository.pendingEmailProgress([pendingId]));
      if (permanent) throw new UnrecoverableError(`rejected by the SMTP server: ${(error as Error).message}`);
      throw error;
    }
    if (pendingId) await this.repository.forgetPendingEmail(pendingId);
  }

  private async send(job: Job<EmailJob>): Promise<void> {
    const data = job.data;
    switch (data.kind) {
      case 'send':
        await this.mailer.send(data.message, data.id);
        return;
      case 'digest':
        await this.repository.withPendingAnswers(data.offerId, async (offer, answers) => {
          if (answers.length === 0 || !offer.notifyEmailAddress) return;
          const summary = { offerId: offer.offerId, title: offer.title, notifyEmailAddress: offer.notifyEmailAddress };
          await this.mailer.send(answersDigestEmail(summary, answers), job.id);
        });
        return;
      case 'offer-closed':
        await this.repository.withPendingAnswers(
          data.offerId,
          async (offer, answers) => {
            if (!offer.notifyEmailAddress) return;
            const summary = { offerId: offer.offerId, title: offer.title, notifyEmailAddress: offer.notifyEmailAddress };
            await this.mailer.send(offerClosedEmail(summary, data.outcome, answers), data.eventId);
          },
          { close: true },
        );
        return;
    }
  }

  /** `keep: false` for a job whose data must not outlive it (sign-in codes): removed once done, sent or not. */
  private async enqueue(jobId: string, data: EmailJob, { keep = true, delay = 0 } = {}): Promise<void> {
    if (keep) await this.repository.recordPendingEmail(jobId, data, new Date(Date.now() + delay));
    await this.jobs.add(QueueName.Email, data.kind, data, { ...this.jobOptions(jobId, { keep }), delay });
  }

  private jobOptions(jobId: string, { keep = true } = {}): JobsOptions & { jobId: string } {
    return {
      jobId,
      attempts: this.config.EMAIL_ATTEMPTS,
      backoff: { type: 'exponential', delay: this.config.EMAIL_BACKOFF_MS },
      removeOnComplete: keep ? { age: 24 * 3600, count: 10_000 } : true,
      removeOnFail: keep ? { age: 7 * 24 * 3600 } : true,
    };
  }

  /** The offer's notify address (null: none; undefined: the offer never became known). */
  private async notifyAddressOf(offerId: string, deliveryCount: number): Promise<string | null | undefined> {
    const cached = this.notifyAddresses.get(offerId);
    if (cached !== undefined) return cached;
    const offer = await this.knownOffer(offerId, deliveryCount);
    if (!offer) return undefined;
    this.notifyAddresses.set(offerId, offer.notifyEmailAddress ?? null, NOTIFY_ADDRESS_TTL_MS);
    return offer.notifyEmailAddress ?? null;
  }

  private async knownOffer(offerId: string, deliveryCount: number) {
    const offer = await this.repository.offer(offerId);
    if (offer) return offer;
    if (deliveryCount >= MAX_WAIT_DELIVERIES) {
      this.logger.warn(`offer ${offerId} never became known (no offers.created); no e-mail for it`);
      return undefined;
    }
    throw new NotReadyError(`offer ${offerId} is not known yet`);
  }
}
