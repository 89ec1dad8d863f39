import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { OutboxMessage } from '@availability/messaging';
import { MicroBatcher } from '@availability/service-core';
import { type NewOffer, OffersRepository } from './offers.repository.js';

/** An offer and the event announcing it, committed together. */
export interface OfferWrite {
  offer: NewOffer;
  event: OutboxMessage;
}

/** Offers to more workers than this are written alone, so a batch's statement stays small and quick. */
export const BATCHED_OFFER_MAX_WORKERS = 100;
/** Most offers one statement writes. */
const MAX_BATCH = 32;

/**
 * Writes new offers (without an Idempotency-Key; those need their own transaction). Offers whose
 * requests reach this point in one turn of the event loop share one statement and one commit
 * (INSERT_OFFERS): under load, each costs PostgreSQL and this process far less; alone, an offer is
 * written at once, as before. The database refusing a batch does not fail its neighbours: each offer
 * is then written alone, and only the ones refused again fail their request (one found written
 * already was committed by the batch).
 */
@Injectable()
export class OfferWriter implements OnModuleDestroy {
  private readonly batches = new MicroBatcher<OfferWrite, Error | null>((writes) => this.writeTogether(writes), MAX_BATCH);

  constructor(private readonly repository: OffersRepository) {}

  async write(write: OfferWrite): Promise<void> {
    if (write.offer.recipients.length > BATCHED_OFFER_MAX_WORKERS) return this.repository.insertOffers([write]);
    const failure = await this.batches.add(write);
    if (failure) throw failure;
  }

  /** Graceful shutdown: a batch gathered but not yet written is written. */
  onModuleDestroy(): Promise<void> {
    return this.batches.drain();
  }

  private async writeTogether(writes: OfferWrite[]): Promise<Array<Error | null>> {
    try {
      await this.repository.insertOffers(writes);
      return writes.map(() => null);
    } catch (error) {
      if (writes.length === 1) return [error as Error];
    }
    const outcomes = await Promise.allSettled(writes.map((write) => this.repository.insertOffers([write])));
    return outcomes.map((outcome) => (outcome.status === 'fulfilled' || writtenAlready(outcome.reason) ? null : (outcome.reason as Error)));
  }
}

/** The keys a second write of the same offer collides on (PostgreSQL names whichever it meets first). */
const OFFER_WRITE_KEYS = new Set(['offer_pkey', 'outbox_event_id_key']);

/**
 * The offer is in the database already: the shared statement committed, though its answer was lost
 * (the connection dropped just after the commit). Offer and event ids are random UUIDs made for their
 * request, so nothing else could have written either.
 */
export function writtenAlready(error: unknown): boolean {
  const { code, constraint } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && typeof constraint === 'string' && OFFER_WRITE_KEYS.has(constraint);
}
