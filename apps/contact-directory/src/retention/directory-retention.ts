import { outboxRetention, parkedEventsRetention } from '@availability/messaging';
import { DAY_MS, type RetentionClass } from '@availability/service-core';
import type { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { DIRECTORY_SCHEMA } from '../directory/directory.repository.js';

/** Sign-in codes are kept a day past their expiry (what a code that failed was, for a support question), then pruned. */
export const SIGN_IN_CODE_KEEP_MS = DAY_MS;
/** An address's sign-in e-mail pace matters for the hour it counts; a day after its last e-mail it is forgotten. */
export const SIGN_IN_MAIL_PACE_KEEP_MS = DAY_MS;
/** The invitation e-mails an organisation sent on a UTC day count for that day only; kept one day more. */
export const INVITATIONS_SENT_KEEP_MS = 2 * DAY_MS;

/** When a token stopped letting anyone in: its revocation or its expiry, whichever came first (LEAST ignores a null). */
export const TOKEN_ENDED = 'LEAST(revoked_at, expires_at)';
/** Tokens that have an end; one without (no expiry, not revoked) is live and kept. */
export const TOKEN_HAS_ENDED = 'revoked_at IS NOT NULL OR expires_at IS NOT NULL';

/**
 * What contact-directory prunes: sign-in codes and e-mail paces, ended session tokens, invitations and
 * the daily counts of them, published outbox rows and handled parked events. Organisations, users, workers, memberships, API keys (revoked ones too: an operator
 * revoked them by hand), company profiles, contacts and suggestion-provider choices are business
 * records and are kept.
 */
export function directoryRetention(config: ContactDirectoryConfig): RetentionClass[] {
  const sessions = config.SESSION_TOKEN_RETENTION_DAYS * DAY_MS;
  return [
    { name: 'sign-in-codes', table: `${DIRECTORY_SCHEMA}.sign_in_code`, time: 'expires_at', keepMs: SIGN_IN_CODE_KEEP_MS },
    { name: 'portal-user-tokens', table: `${DIRECTORY_SCHEMA}.portal_user_token`, time: TOKEN_ENDED, where: TOKEN_HAS_ENDED, keepMs: sessions },
    { name: 'worker-tokens', table: `${DIRECTORY_SCHEMA}.worker_token`, time: TOKEN_ENDED, where: TOKEN_HAS_ENDED, keepMs: sessions },
    { name: 'invitations', table: `${DIRECTORY_SCHEMA}.invitation`, time: 'created_at', keepMs: config.INVITATION_RETENTION_DAYS * DAY_MS },
    { name: 'invitations-sent', table: `${DIRECTORY_SCHEMA}.invitations_sent`, time: 'day', keepMs: INVITATIONS_SENT_KEEP_MS },
    { name: 'sign-in-mail-pace', table: `${DIRECTORY_SCHEMA}.sign_in_mail_pace`, time: 'last_mail_at', where: 'last_mail_at IS NOT NULL', keepMs: SIGN_IN_MAIL_PACE_KEEP_MS },
    outboxRetention(DIRECTORY_SCHEMA, config.OUTBOX_RETENTION_HOURS),
    parkedEventsRetention(DIRECTORY_SCHEMA, config.PARKED_EVENT_RETENTION_DAYS),
  ];
}
