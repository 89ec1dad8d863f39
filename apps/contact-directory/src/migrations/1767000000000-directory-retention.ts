import { concurrentIndexMigration } from '@availability/service-core';

/**
 * The indexes the retention of ended session tokens and of invitations reads, oldest first
 * (directoryRetention). A token's entry is its end, revocation or expiry; a token with neither has none.
 */
export const DirectoryRetention1767000000000 = concurrentIndexMigration('DirectoryRetention', 1767000000000, [
  { schema: 'directory', name: 'portal_user_token_ended', on: 'directory.portal_user_token (LEAST(revoked_at, expires_at)) WHERE revoked_at IS NOT NULL OR expires_at IS NOT NULL' },
  { schema: 'directory', name: 'worker_token_ended', on: 'directory.worker_token (LEAST(revoked_at, expires_at)) WHERE revoked_at IS NOT NULL OR expires_at IS NOT NULL' },
  { schema: 'directory', name: 'invitation_created', on: 'directory.invitation (created_at)' },
]);
