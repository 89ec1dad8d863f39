import { Inject, Injectable, Logger } from '@nestjs/common';
import { CREDENTIAL_REVOKED_SUBJECT, type CredentialRevokedMessage } from '@availability/contracts';
import { NATS_CONNECTION, type NatsConnection, RequestReply } from '@availability/messaging';

/**
 * Tells every service that caches credential verdicts to forget a revoked one now (core NATS,
 * fire-and-forget: a service that misses it still drops the verdict when its cache entry expires).
 */
@Injectable()
export class RevocationPublisher {
  private readonly logger = new Logger('RevocationPublisher');

  constructor(
    private readonly rpc: RequestReply,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
  ) {}

  /** Publishes and waits until the server has it, so the revocation is out before the admin call returns. */
  async credentialRevoked(tokenHash: string): Promise<void> {
    const message: CredentialRevokedMessage = { tokenHash };
    try {
      this.rpc.publish(CREDENTIAL_REVOKED_SUBJECT, message);
      await this.nats.flush();
    } catch (error) {
      this.logger.warn(`revocation broadcast failed (cached verdicts expire on their own): ${(error as Error).message}`);
    }
  }
}
