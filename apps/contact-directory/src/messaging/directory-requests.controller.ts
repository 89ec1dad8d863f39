import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CredentialVerdict,
  DirectoryPattern,
  type ResolveOfferAudienceReply,
  type ResolveOrganisationContactsReply,
  type ResolveWebhookTargetReply,
} from '@availability/contracts';
import { SealedBox, sealWebhookTarget } from '@availability/messaging';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { DirectoryQueries } from '../directory/directory-queries.service.js';

/**
 * Answers the directory's request/reply contract (libs/contracts directory-messages), the requests
 * its bus role answers. Requests arrive as `unknown`: DirectoryQueries checks them and answers
 * malformed ones negatively.
 */
@Controller()
export class DirectoryRequestsController {
  private readonly logger = new Logger('DirectoryRequests');
  private readonly sealing?: SealedBox;

  constructor(
    private readonly queries: DirectoryQueries,
    private readonly config: ContactDirectoryConfig,
  ) {
    if (config.DIRECTORY_XKEY_SEED && config.DISPATCHER_XKEY) this.sealing = new SealedBox(config.DIRECTORY_XKEY_SEED);
    else this.logger.warn('DIRECTORY_XKEY_SEED or DISPATCHER_XKEY not set: webhook targets are not served, so no webhooks are sent');
  }

  @MessagePattern(DirectoryPattern.VerifyCredential)
  verifyCredential(@Payload() request: unknown): Promise<CredentialVerdict> {
    return this.queries.verifyCredential(request);
  }

  @MessagePattern(DirectoryPattern.ResolveOfferAudience)
  resolveOfferAudience(@Payload() request: unknown): Promise<ResolveOfferAudienceReply> {
    return this.queries.resolveOfferAudience(request);
  }

  /** The target with its secrets sealed for the dispatcher alone: they never cross the bus in clear. */
  @MessagePattern(DirectoryPattern.ResolveWebhookTarget)
  async resolveWebhookTarget(@Payload() request: unknown): Promise<ResolveWebhookTargetReply> {
    if (!this.sealing) throw new Error('webhook target sealing is not configured');
    const target = await this.queries.resolveWebhookTarget(request);
    const organisationId = String((request as { organisationId?: unknown } | null)?.organisationId ?? '');
    return sealWebhookTarget(this.sealing, this.config.DISPATCHER_XKEY, organisationId, target);
  }

  @MessagePattern(DirectoryPattern.ResolveOrganisationContacts)
  resolveOrganisationContacts(@Payload() request: unknown): Promise<ResolveOrganisationContactsReply> {
    return this.queries.resolveOrganisationContacts(request);
  }
}
