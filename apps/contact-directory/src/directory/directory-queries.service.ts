import { Injectable } from '@nestjs/common';
import type { CredentialVerdict, ResolveOfferAudienceReply } from '@availability/contracts';
import { isTokenHash } from '../credentials/credential-tokens.js';
import { DirectoryRepository } from './directory.repository.js';
import { audienceReply, parseAudienceRequest } from './offer-audience.js';

/** What other services ask the directory over NATS. Malformed requests get a negative answer, never an error. */
@Injectable()
export class DirectoryQueries {
  constructor(private readonly repository: DirectoryRepository) {}

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
}
