import {
  outboxPayloadTextMigration,
  outboxPublishedIndexMigration,
  outboxTraceIdMigration,
  outboxTraceparentMigration,
  outboxVacuumMigration,
  parkedEventsHandledMigration,
  parkedEventsMigration,
} from '@availability/messaging';
import { DISPATCHER_SCHEMA } from '../delivery/deliveries.repository.js';
import { CreateDispatcher1764100000000 } from './1764100000000-create-dispatcher.js';
import { HeldDeliveries1764300000000 } from './1764300000000-held-deliveries.js';
import { OverdueDeliveries1764400000000 } from './1764400000000-overdue-deliveries.js';
import { TestDeliveries1764700000000 } from './1764700000000-test-deliveries.js';
import { AttemptClaims1765100000000 } from './1765100000000-attempt-claims.js';
import { DeliveryRetention1767000000000 } from './1767000000000-delivery-retention.js';
import { DeliveryLogFilters1767400000000 } from './1767400000000-delivery-log-filters.js';
import { DeliverySubjects1767500000000 } from './1767500000000-delivery-subjects.js';
import { AnswerSequence1767600000000 } from './1767600000000-answer-sequence.js';
import { AnswerOrder1767610000000 } from './1767610000000-answer-order.js';

/** webhook-dispatcher's migrations, in order: applied at start-up and by `migrate.js`. */
export const DISPATCHER_MIGRATIONS = [
  CreateDispatcher1764100000000,
  outboxTraceIdMigration(DISPATCHER_SCHEMA, 1764200000000),
  HeldDeliveries1764300000000,
  OverdueDeliveries1764400000000,
  outboxPayloadTextMigration(DISPATCHER_SCHEMA, 1764500000000),
  parkedEventsMigration(DISPATCHER_SCHEMA, 1764600000000),
  TestDeliveries1764700000000,
  outboxTraceparentMigration(DISPATCHER_SCHEMA, 1764800000000),
  outboxVacuumMigration(DISPATCHER_SCHEMA, 1765000000000),
  AttemptClaims1765100000000,
  DeliveryRetention1767000000000,
  outboxPublishedIndexMigration(DISPATCHER_SCHEMA, 1767100000000),
  parkedEventsHandledMigration(DISPATCHER_SCHEMA, 1767200000000),
  DeliveryLogFilters1767400000000,
  DeliverySubjects1767500000000,
  AnswerSequence1767600000000,
  AnswerOrder1767610000000,
];
