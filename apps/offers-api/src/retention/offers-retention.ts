import { outboxRetention } from '@availability/messaging';
import { HOUR_MS, type RetentionClass } from '@availability/service-core';
import type { OffersApiConfig } from '../config/offers-api.config.js';
import { OFFERS_SCHEMA } from '../offers/offers.repository.js';

/** Idempotency-Keys are honoured for 24 hours (docs/offers-api.md), then forgotten. */
export const IDEMPOTENCY_KEY_HOURS = 24;

/**
 * What offers-api prunes: Idempotency-Keys a day after their first use, and published outbox rows.
 * Offers and their recipients are the organisations' business records and are kept.
 */
export function offersRetention(config: OffersApiConfig): RetentionClass[] {
  return [
    { name: 'idempotency-keys', table: `${OFFERS_SCHEMA}.idempotency_key`, time: 'created_at', keepMs: IDEMPOTENCY_KEY_HOURS * HOUR_MS },
    outboxRetention(OFFERS_SCHEMA, config.OUTBOX_RETENTION_HOURS),
  ];
}
