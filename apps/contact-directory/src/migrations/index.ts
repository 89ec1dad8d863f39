import {
  outboxPayloadTextMigration,
  outboxPublishedIndexMigration,
  outboxTraceIdMigration,
  outboxTraceparentMigration,
  outboxVacuumMigration,
  parkedEventsHandledMigration,
  parkedEventsMigration,
} from '@availability/messaging';
import { DIRECTORY_SCHEMA } from '../directory/directory.repository.js';
import { CreateDirectory1763900000000 } from './1763900000000-create-directory.js';
import { PortalAndContacts1764000000000 } from './1764000000000-portal-and-contacts.js';
import { SuggestionProviderConsent1764300000000 } from './1764300000000-suggestion-provider-consent.js';
import { SignatureSchemes1764400000000 } from './1764400000000-signature-schemes.js';
import { SignInCodes1764900000000 } from './1764900000000-sign-in-codes.js';
import { InvitationsSent1765100000000 } from './1765100000000-invitations-sent.js';
import { SignInMailPace1766300000000 } from './1766300000000-sign-in-mail-pace.js';
import { DirectoryRetention1767000000000 } from './1767000000000-directory-retention.js';
import { InvitationsSentDay1767300000000 } from './1767300000000-invitations-sent-day.js';
import { VerificationWarning1767600000000 } from './1767600000000-verification-warning.js';

/** contact-directory's migrations, in order: applied at start-up and by `migrate.js`. */
export const DIRECTORY_MIGRATIONS = [
  CreateDirectory1763900000000,
  PortalAndContacts1764000000000,
  outboxTraceIdMigration(DIRECTORY_SCHEMA, 1764200000000),
  SuggestionProviderConsent1764300000000,
  SignatureSchemes1764400000000,
  outboxPayloadTextMigration(DIRECTORY_SCHEMA, 1764500000000),
  outboxTraceparentMigration(DIRECTORY_SCHEMA, 1764800000000),
  SignInCodes1764900000000,
  outboxVacuumMigration(DIRECTORY_SCHEMA, 1765000000000),
  InvitationsSent1765100000000,
  // Sign-in requests are handled by its own consumer (sign-in.requested).
  parkedEventsMigration(DIRECTORY_SCHEMA, 1766200000000),
  SignInMailPace1766300000000,
  DirectoryRetention1767000000000,
  outboxPublishedIndexMigration(DIRECTORY_SCHEMA, 1767100000000),
  parkedEventsHandledMigration(DIRECTORY_SCHEMA, 1767200000000),
  InvitationsSentDay1767300000000,
  VerificationWarning1767600000000,
];
