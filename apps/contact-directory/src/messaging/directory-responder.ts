import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import {
  type CredentialVerdict,
  DirectoryPattern,
  type ResolveOfferAudienceReply,
  type ResolveOrganisationContactsReply,
  type ResolveWebhookTargetReply,
} from '@availability/contracts';
import { RequestReply, SealedBox, sealWebhookTarget } from '@availability/messaging';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { DirectoryQueries } from '../directory/directory-queries.service.js';

/** Queue group of the directory's responders: each request is answered by one instance. */
export const RESPONDER_QUEUE = 'contact-directory';

/**
 * Answers the directory's request/reply contract (libs/contracts directory-messages) over NATS.
 * Requests arrive as `unknown`: DirectoryQueries checks them and answers malformed ones negatively.
 */
@Injectable()
export class DirectoryResponder implements OnApplicationBootstrap {
  private readonly logger = new Logger('DirectoryResponder');
  private readonly sealing?: SealedBox;

  constructor(
    private readonly rpc: RequestReply,
    private readonly queries: DirectoryQueries,
    private readonly config: ContactDirectoryConfig,
  ) {
    if (config.DIRECTORY_XKEY_SEED && config.DISPATCHER_XKEY) this.sealing = new SealedBox(config.DIRECTORY_XKEY_SEED);
    else this.logger.warn('DIRECTORY_XKEY_SEED or DISPATCHER_XKEY not set: webhook targets are not served, so no webhooks are sent');
  }

  onApplicationBootstrap(): void {
    this.rpc.serve<unknown, CredentialVerdict>(DirectoryPattern.VerifyCredential, RESPONDER_QUEUE, (request) =>
      this.queries.verifyCredential(request),
    );
    this.rpc.serve<unknown, ResolveOfferAudienceReply>(DirectoryPattern.ResolveOfferAudience, RESPONDER_QUEUE, (request) =>
      this.queries.resolveOfferAudience(request),
    );
    this.rpc.serve<unknown, ResolveWebhookTargetReply>(DirectoryPattern.ResolveWebhookTarget, RESPONDER_QUEUE, (request) =>
      this.resolveWebhookTarget(request),
    );
    this.rpc.serve<unknown, ResolveOrganisationContactsReply>(DirectoryPattern.ResolveOrganisationContacts, RESPONDER_QUEUE, (request) =>
      this.queries.resolveOrganisationContacts(request),
    );
  }

  /** The target with its secrets sealed for the dispatcher alone: they never cross the bus in clear. */
  private async resolveWebhookTarget(request: unknown): Promise<ResolveWebhookTargetReply> {
    if (!this.sealing) throw new Error('webhook target sealing is not configured');
    const target = await this.queries.resolveWebhookTarget(request);
    const organisationId = String((request as { organisationId?: unknown } | null)?.organisationId ?? '');
    return sealWebhookTarget(this.sealing, this.config.DISPATCHER_XKEY, organisationId, target);
  }
}
