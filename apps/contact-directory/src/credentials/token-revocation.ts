import { Injectable } from '@nestjs/common';
import { DirectoryRepository, type OwnedTokenKind } from '../directory/directory.repository.js';
import { RevocationPublisher } from './revocation.publisher.js';

/** The one way a worker or portal-user token is revoked: an operator's revocation and its holder's sign-out alike. */
@Injectable()
export class TokenRevocation {
  constructor(
    private readonly repository: DirectoryRepository,
    private readonly revocations: RevocationPublisher,
  ) {}

  /** Marks the token revoked and tells every service caching its verdict; false when there is no such token. */
  async revoke(kind: OwnedTokenKind, token: { id: string } | { tokenHash: string }): Promise<boolean> {
    const tokenHash = await this.repository.revokeOwnedToken(kind, token);
    if (tokenHash === undefined) return false;
    await this.revocations.credentialRevoked(tokenHash);
    return true;
  }
}
