import { Injectable } from '@nestjs/common';
import { CREDENTIAL_REVOKED_SUBJECT, type CredentialRevokedMessage } from '@availability/contracts';
import { RequestReply } from '@availability/messaging';

/** Tells every service that caches credential verdicts to forget a revoked one now. */
@Injectable()
export class RevocationPublisher {
  constructor(private readonly rpc: RequestReply) {}

  /** Resolves once the server has it, so the revocation is out before the admin call returns. */
  async credentialRevoked(tokenHash: string): Promise<void> {
    const message: CredentialRevokedMessage = { tokenHash };
    await this.rpc.broadcast(CREDENTIAL_REVOKED_SUBJECT, message);
  }
}
