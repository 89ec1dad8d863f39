import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type CreateOfferDto,
  EventSubject,
  type OfferCompletedEvent,
  type OfferCreatedEvent,
  type OfferWithdrawnEvent,
  type WorkerAnswer,
  type WorkerOfferView,
  isUuid,
} from '@availability/contracts';
import { appendToOutbox, newEvent, OutboxRelay, outboxMessage } from '@availability/messaging';
import { bodyFingerprint, type FieldErrors, ProblemException } from '@availability/service-core';
import { DirectoryClient } from '../directory/directory.client.js';
import { answerEvent, answerMessage } from './answer-event.js';
import {
  assertWorkerCanAnswer,
  checkTimeSlots,
  lastEnd,
  normaliseSlots,
  parseAssignedWorkers,
  planCompletion,
  planWithdrawal,
} from './offer-rules.js';
import { OfferDocumentCache } from './offer-document.cache.js';
import { OfferWriter } from './offer-writer.js';
import { type NewOffer, OFFERS_SCHEMA, OffersRepository } from './offers.repository.js';

/** Offer ids are uuids: anything else is no offer (404) without asking the database. */
/** At most this many unknown workers are listed one by one in an error; the rest are counted. */
const LISTED_UNKNOWN_WORKERS = 20;

export interface CreatedOffer {
  offerId: string;
  /** True when an Idempotency-Key repeat returned the first request's offer. */
  replayed: boolean;
}

/**
 * The offer lifecycle. Every state change and the event announcing it commit in one transaction
 * (outbox); the relay publishes them right after the commit, so events leave within milliseconds.
 */
@Injectable()
export class OffersService {
  private readonly documents = new OfferDocumentCache();

  constructor(
    private readonly repository: OffersRepository,
    private readonly writer: OfferWriter,
    private readonly directory: DirectoryClient,
    private readonly relay: OutboxRelay,
  ) {}

  async create(organisationId: string, dto: CreateOfferDto, idempotencyKey?: string): Promise<CreatedOffer> {
    // Compared over the canonical form: the same offer with its properties in another order or case is a repeat.
    const requestHash = idempotencyKey ? bodyFingerprint(dto) : '';
    if (idempotencyKey) {
      const earlier = await this.repository.findIdempotencyKey(organisationId, idempotencyKey);
      if (earlier) return this.replay(earlier, requestHash);
    }

    const offer = await this.validatedOffer(organisationId, dto);
    const event = newEvent<Omit<OfferCreatedEvent, 'eventId' | 'occurredAt' | 'organisationId'>>(organisationId, {
      offerId: offer.id,
      title: offer.title,
      createdByUserId: offer.createdByUserId,
      notifyEmailAddress: offer.notifyEmailAddress,
      events: offer.events,
      workerIds: offer.recipients.map((r) => r.workerId),
    });
    const message = outboxMessage(EventSubject.OfferCreated, event);

    if (!idempotencyKey) {
      await this.writer.write({ offer, event: message });
      this.relay.publishCommitted([message]);
      return { offerId: offer.id, replayed: false };
    }
    const result = await this.repository.transaction(async (manager) => {
      const earlier = await this.repository.claimIdempotencyKey(manager, organisationId, idempotencyKey, requestHash, offer.id);
      if (earlier) return this.replay(earlier, requestHash);
      await this.repository.insertOffer(offer, message, manager);
      return { offerId: offer.id, replayed: false };
    });
    if (!result.replayed) this.relay.publishCommitted([message]);
    return result;
  }

  /** The offer as JSON text: rebuilt by PostgreSQL only when it changed since this instance last built it. */
  async findJson(organisationId: string, offerId: string): Promise<string> {
    this.assertOfferId(offerId);
    const version = await this.repository.offerVersion(organisationId, offerId);
    if (version === undefined) throw ProblemException.notFound('The offer');
    const cached = this.documents.get(organisationId, offerId, version);
    if (cached !== undefined) return cached;
    const document = await this.repository.offerDocument(organisationId, offerId);
    if (!document) throw ProblemException.notFound('The offer');
    this.documents.set(organisationId, offerId, document);
    return document.body;
  }

  async complete(organisationId: string, offerId: string, body: unknown): Promise<void> {
    const assigned = parseAssignedWorkers(body);
    this.assertOfferId(offerId);
    const message = await this.repository.transaction(async (manager) => {
      const offer = await this.repository.lockForSender(manager, organisationId, offerId);
      if (!offer) throw ProblemException.notFound('The offer');
      const plan = planCompletion(offer, await this.repository.recipients(manager, offerId), assigned);
      await this.repository.markComplete(manager, offerId, plan.successful);
      const event = newEvent<Pick<OfferCompletedEvent, 'offerId' | 'title' | 'successfulWorkerIds' | 'unsuccessfulWorkerIds'>>(organisationId, {
        offerId,
        title: offer.title,
        successfulWorkerIds: plan.successful,
        unsuccessfulWorkerIds: plan.unsuccessful,
      });
      const completed = outboxMessage(EventSubject.OfferCompleted, event);
      await appendToOutbox(manager, OFFERS_SCHEMA, [completed]);
      return completed;
    });
    this.relay.publishCommitted([message]);
  }

  async withdraw(organisationId: string, offerId: string): Promise<void> {
    this.assertOfferId(offerId);
    const message = await this.repository.transaction(async (manager) => {
      const offer = await this.repository.lockForSender(manager, organisationId, offerId);
      if (!offer) throw ProblemException.notFound('The offer');
      if (planWithdrawal(offer) === 'already-withdrawn') return undefined;
      const workerIds = await this.repository.markWithdrawn(manager, offerId);
      const event = newEvent<Pick<OfferWithdrawnEvent, 'offerId' | 'title' | 'workerIds'>>(organisationId, { offerId, title: offer.title, workerIds });
      const withdrawn = outboxMessage(EventSubject.OfferWithdrawn, event);
      await appendToOutbox(manager, OFFERS_SCHEMA, [withdrawn]);
      return withdrawn;
    });
    if (message) this.relay.publishCommitted([message]);
  }

  /** A worker applies or rejects. The same answer again changes nothing and sends no second webhook. */
  async answer(workerId: string, offerId: string, response: WorkerAnswer): Promise<WorkerOfferView> {
    this.assertOfferId(offerId);
    const event = answerEvent(offerId, workerId, response, new Date());
    const outcome = await this.repository.answer(offerId, workerId, response, event);
    if (!outcome) throw ProblemException.notFound('The offer');
    if (outcome.eventPayload !== null) this.relay.publishCommitted([answerMessage(event, outcome.eventPayload)]);
    // Not recorded: either the same answer again (nothing to do) or the offer is closed (409 says why).
    else assertWorkerCanAnswer(outcome);
    return outcome.view;
  }

  async workerOffer(workerId: string, offerId: string): Promise<WorkerOfferView> {
    const view = isUuid(offerId) ? await this.repository.workerOffer(workerId, offerId) : undefined;
    if (!view) throw ProblemException.notFound('The offer');
    return view;
  }

  async workerOffers(workerId: string, limit: number, before?: number): Promise<{ offers: WorkerOfferView[]; nextCursor: string | null }> {
    const rows = await this.repository.workerOffers(workerId, limit, before);
    const nextCursor = rows.length === limit ? String(rows[rows.length - 1].cursor) : null;
    return { offers: rows.map(({ cursor: _cursor, ...view }) => view), nextCursor };
  }

  private assertOfferId(offerId: string): void {
    if (!isUuid(offerId)) throw ProblemException.notFound('The offer');
  }

  private replay(earlier: { offerId: string; requestHash: string }, requestHash: string): CreatedOffer {
    if (earlier.requestHash !== requestHash) {
      throw new ProblemException(422, 'idempotency-key-reused', 'This Idempotency-Key was already used with a different request body.');
    }
    return { offerId: earlier.offerId, replayed: true };
  }

  /** Checks what needs the clock and the directory, and returns the offer ready to insert. */
  private async validatedOffer(organisationId: string, dto: CreateOfferDto): Promise<NewOffer> {
    const errors: FieldErrors = checkTimeSlots(dto.events, new Date());
    const audience = await this.directory.resolveAudience(organisationId, dto.createdByUserId, dto.workerIds);
    if (!audience.userKnown) errors.createdByUserId = ['is not a user of your organisation'];
    if (audience.unknownWorkerIds.length > 0) {
      const listed = audience.unknownWorkerIds.slice(0, LISTED_UNKNOWN_WORKERS).map((id) => `worker ${id} is not known to your organisation`);
      const more = audience.unknownWorkerIds.length - listed.length;
      errors.workerIds = more > 0 ? [...listed, `and ${more} more unknown workers`] : listed;
    }
    if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
    const events = normaliseSlots(dto.events);
    return {
      id: randomUUID(),
      organisationId,
      createdByUserId: dto.createdByUserId,
      title: dto.title,
      details: dto.details ?? '',
      locationPlaceId: dto.locationPlaceId ?? '',
      notifyEmailAddress: dto.notifyEmailAddress ?? null,
      events,
      endsAt: lastEnd(events),
      recipients: audience.workers,
    };
  }
}
