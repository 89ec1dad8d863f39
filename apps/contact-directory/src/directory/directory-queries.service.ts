import { Injectable, Logger } from '@nestjs/common';
import { isUuid } from '@availability/contracts';
import type {
  CredentialVerdict,
  ResolveOfferAudienceReply,
  ResolveOrganisationContactsReply,
  WebhookTarget,
} from '@availability/contracts';
import { SecretBox } from '../company-profile/secret-box.js';
import { isTokenHash } from '../credentials/credential-tokens.js';
import { PortalRepository } from '../portal/portal.repository.js';
import { DirectoryRepository } from './directory.repository.js';
import { audienceReply, parseAudienceRequest } from './offer-audience.js';

/** What other services ask the directory over NATS. Malformed requests get a negative answer, never an error. */
@Injectable()
export class DirectoryQueries {
  private readonly logger = new Logger('DirectoryQueries');

  constructor(
    private readonly repository: DirectoryRepository,
    private readonly portal: PortalRepository,
    private readonly box: SecretBox,
  ) {}

  async verifyCredential(request: unknown): Promise<CredentialVerdict> {
    const tokenHash = (request as { tokenHash?: unknown } | null)?.tokenHash;
    if (!isTokenHash(tokenHash)) return { kind: 'none' };
    return this.repository.verifyCredential(tokenHash);
  }

  async resolveOfferAudience(request: unknown): Promise<ResolveOfferAudienceReply> {
    const query = parseAudienceRequest(request);
    if (!query.organisationId) return audienceReply(query, false, new Map());
    const { userKnown, names } = await this.repository.resolveAudience(query.organisationId, query.userId ?? null, query.lookup);
    return audienceReply(query, userKnown, names);
  }

  /**
   * Where and how to call an organisation: its base URL and signing secrets in clear, newest first
   * (the replaced one only while its grace period runs). No usable secret means no calls. The
   * responder seals the secrets before they leave this process.
   */
  async resolveWebhookTarget(request: unknown): Promise<WebhookTarget> {
    const none: WebhookTarget = { baseUrl: null, secrets: [] };
    const organisationId = (request as { organisationId?: unknown } | null)?.organisationId;
    if (!isUuid(organisationId)) return none;
    const target = await this.portal.webhookTarget(organisationId.toLowerCase());
    if (!target) return none;
    const current = this.box.open(target.secretSealed, target.organisationId);
    if (current === undefined) {
      this.logger.error(`the webhook secret of organisation ${target.organisationId} does not decrypt (DIRECTORY_SECRET_KEY changed?)`);
      return none;
    }
    const previous = target.previousSecretSealed ? this.box.open(target.previousSecretSealed, target.organisationId) : undefined;
    return {
      baseUrl: target.baseUrl,
      secrets: previous !== undefined && previous !== current ? [current, previous] : [current],
      signatureSchemes: target.signatureSchemes,
    };
  }

  /** The organisation's name and its admins' e-mail addresses (who to tell about its account). */
  async resolveOrganisationContacts(request: unknown): Promise<ResolveOrganisationContactsReply> {
    const organisationId = (request as { organisationId?: unknown } | null)?.organisationId;
    if (!isUuid(organisationId)) return { name: null, adminEmailAddresses: [] };
    return (await this.portal.organisationContacts(organisationId.toLowerCase())) ?? { name: null, adminEmailAddresses: [] };
  }
}
