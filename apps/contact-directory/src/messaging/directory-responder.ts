import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  type CredentialVerdict,
  DirectoryPattern,
  type ResolveOfferAudienceReply,
  type ResolveOrganisationContactsReply,
  type ResolveWebhookTargetReply,
} from '@availability/contracts';
import { RequestReply } from '@availability/messaging';
import { DirectoryQueries } from '../directory/directory-queries.service.js';

/** Queue group of the directory's responders: each request is answered by one instance. */
export const RESPONDER_QUEUE = 'contact-directory';

/**
 * Answers the directory's request/reply contract (libs/contracts directory-messages) over NATS.
 * Requests arrive as `unknown`: DirectoryQueries checks them and answers malformed ones negatively.
 */
@Injectable()
export class DirectoryResponder implements OnApplicationBootstrap {
  constructor(
    private readonly rpc: RequestReply,
    private readonly queries: DirectoryQueries,
  ) {}

  onApplicationBootstrap(): void {
    this.rpc.serve<unknown, CredentialVerdict>(DirectoryPattern.VerifyCredential, RESPONDER_QUEUE, (request) =>
      this.queries.verifyCredential(request),
    );
    this.rpc.serve<unknown, ResolveOfferAudienceReply>(DirectoryPattern.ResolveOfferAudience, RESPONDER_QUEUE, (request) =>
      this.queries.resolveOfferAudience(request),
    );
    this.rpc.serve<unknown, ResolveWebhookTargetReply>(DirectoryPattern.ResolveWebhookTarget, RESPONDER_QUEUE, (request) =>
      this.queries.resolveWebhookTarget(request),
    );
    this.rpc.serve<unknown, ResolveOrganisationContactsReply>(DirectoryPattern.ResolveOrganisationContacts, RESPONDER_QUEUE, (request) =>
      this.queries.resolveOrganisationContacts(request),
    );
  }
}
