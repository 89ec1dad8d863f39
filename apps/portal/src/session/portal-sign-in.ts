import { Injectable } from '@nestjs/common';
import { DirectorySignIn } from './directory-sign-in.js';
import type { SignedInPerson } from './portal-session.js';
import { SessionStore } from './session-store.js';

/**
 * Signing in and out of the portal: the directory gives and revokes the token, the store keeps the
 * session, and the cookie (SessionCookie) carries only the session's id.
 */
@Injectable()
export class PortalSignIn {
  constructor(
    private readonly directory: DirectorySignIn,
    private readonly store: SessionStore,
  ) {}

  /**
   * Redeems the code for a new session, and ends the one the browser had (`previousId`), so no copy
   * of its old cookie stays signed in. The new session's id and who it signs in.
   */
  async signIn(code: string, previousId: string | undefined): Promise<{ id: string; person: SignedInPerson }> {
    const session = await this.directory.redeem(code);
    let id: string;
    try {
      id = await this.store.create(session);
    } catch (error) {
      // Kept nowhere, the token would only wait for its expiry.
      await this.directory.revoke(session.token);
      throw error;
    }
    // Signed in either way: an old session that cannot be ended now still expires on its own.
    await this.signOut(previousId).catch(() => undefined);
    return { id, person: session.person };
  }

  /**
   * Ends the session first (that alone signs out every copy of the cookie), then revokes its token.
   * Nothing else holds the token, so when the directory cannot be told it is left to expire.
   */
  async signOut(id: string | undefined): Promise<void> {
    if (id === undefined) return;
    const ended = await this.store.remove(id);
    if (ended) await this.directory.revoke(ended.token);
  }
}
