import { outboxPayloadTextMigration, outboxPublishedIndexMigration, outboxTraceIdMigration, outboxTraceparentMigration, outboxVacuumMigration } from '@availability/messaging';
import { OFFERS_SCHEMA } from '../offers/offers.repository.js';
import { CreateOffers1763800000000 } from './1763800000000-create-offers.js';
import { OfferVersion1763810000000 } from './1763810000000-offer-version.js';
import { RecipientWithoutOfferCheck1764400000000 } from './1764400000000-recipient-without-offer-check.js';
import { RecipientWorkerUuid1764410000000 } from './1764410000000-recipient-worker-uuid.js';
import { OfferOrganisationPage1764900000000 } from './1764900000000-offer-organisation-page.js';
import { IdempotencyKeyCreated1767000000000 } from './1767000000000-idempotency-key-created.js';
import { AnswerSequence1767600000000 } from './1767600000000-answer-sequence.js';

/** offers-api's migrations, in order: applied at start-up and by `migrate.js`. */
export const OFFERS_MIGRATIONS = [
  CreateOffers1763800000000,
  OfferVersion1763810000000,
  outboxTraceIdMigration(OFFERS_SCHEMA, 1764200000000),
  RecipientWithoutOfferCheck1764400000000,
  RecipientWorkerUuid1764410000000,
  outboxPayloadTextMigration(OFFERS_SCHEMA, 1764500000000),
  outboxTraceparentMigration(OFFERS_SCHEMA, 1764800000000),
  OfferOrganisationPage1764900000000,
  outboxVacuumMigration(OFFERS_SCHEMA, 1765000000000),
  IdempotencyKeyCreated1767000000000,
  outboxPublishedIndexMigration(OFFERS_SCHEMA, 1767100000000),
  AnswerSequence1767600000000,
];
