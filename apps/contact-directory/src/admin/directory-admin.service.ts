import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { isUuid } from '@availability/contracts';
import { ProblemException } from '@availability/service-core';
import { issueApiKey, issuePortalUserToken, issueWorkerToken } from '../credentials/credential-tokens.js';
import { WebhookTargetChanges } from '../company-profile/webhook-target-changes.js';
import { RevocationPublisher } from '../credentials/revocation.publisher.js';
import { TokenRevocation } from '../credentials/token-revocation.js';
import { DirectoryRepository, type NewWorker } from '../directory/directory.repository.js';
import type {
  ApiKeyView,
  OrganisationCreatedView,
  PortalUserTokenView,
  PortalUserView,
  SuggestionProviderApprovalView,
  WorkerCreatedView,
  WorkerTokenView,
} from './dto/admin-views.js';
import type { CreateOrganisationDto } from './dto/create-organisation.dto.js';
import type { CreatePortalUserDto } from './dto/create-portal-user.dto.js';
import type { CreateWorkerDto } from './dto/create-worker.dto.js';

export const FIRST_API_KEY_NAME = 'initial';
export const DEFAULT_API_KEY_NAME = 'unnamed';

/** An id from a URL: not a uuid means it cannot exist, so 404 without asking the database. */
function existingId(id: string, what: string): string {
  if (!isUuid(id)) throw ProblemException.notFound(what);
  return id.toLowerCase();
}

/** Platform operators' changes to the directory. Tokens are returned to the caller once and never logged. */
@Injectable()
export class DirectoryAdminService {
  constructor(
    private readonly repository: DirectoryRepository,
    private readonly revocations: RevocationPublisher,
    private readonly tokens: TokenRevocation,
    private readonly targets: WebhookTargetChanges,
  ) {}

  async createOrganisation(dto: CreateOrganisationDto): Promise<OrganisationCreatedView> {
    const organisation = { id: randomUUID(), name: dto.name, kind: dto.kind };
    const key = issueApiKey();
    await this.repository.insertOrganisation(organisation, FIRST_API_KEY_NAME, key);
    return { ...organisation, apiKey: { id: key.id, key: key.token } };
  }

  async setSuggestionProviderApproved(organisationId: string, approved: boolean): Promise<SuggestionProviderApprovalView> {
    const id = existingId(organisationId, 'The organisation');
    const organisation = await this.repository.setSuggestionProviderApproved(id, approved);
    if (!organisation) throw ProblemException.notFound('The organisation');
    await this.targets.changed(id);
    return { organisationId: id, kind: organisation.kind, suggestionProviderApproved: approved, mayProvideSuggestions: approved || organisation.kind === 'integrator' };
  }

  async createApiKey(organisationId: string, name: string | undefined): Promise<ApiKeyView> {
    const key = issueApiKey();
    const created = await this.repository.insertApiKey(existingId(organisationId, 'The organisation'), name ?? DEFAULT_API_KEY_NAME, key);
    if (!created) throw ProblemException.notFound('The organisation');
    return { id: key.id, key: key.token };
  }

  async revokeApiKey(apiKeyId: string): Promise<void> {
    const tokenHash = await this.repository.revokeApiKey(existingId(apiKeyId, 'The API key'));
    if (tokenHash === undefined) throw ProblemException.notFound('The API key');
    await this.revocations.credentialRevoked(tokenHash);
  }

  async createPortalUser(organisationId: string, dto: CreatePortalUserDto): Promise<PortalUserView> {
    const user = {
      id: randomUUID(),
      organisationId: existingId(organisationId, 'The organisation'),
      email: dto.email,
      name: dto.name,
      role: dto.role ?? 'member',
    };
    if (!(await this.repository.organisationExists(user.organisationId))) throw ProblemException.notFound('The organisation');
    if (!(await this.repository.insertPortalUser(user))) {
      throw ProblemException.conflict('user-exists', 'The organisation already has a user with this e-mail address.');
    }
    return user;
  }

  /** Creates the workers, links them to the organisation and issues each a token, in one transaction. */
  async createWorkers(organisationId: string, dtos: CreateWorkerDto[]): Promise<WorkerCreatedView[]> {
    const id = existingId(organisationId, 'The organisation');
    const workers: NewWorker[] = dtos.map((dto) => ({ id: randomUUID(), name: dto.name, email: dto.email ?? null, token: issueWorkerToken() }));
    await this.repository.transaction(async (manager) => {
      if (!(await this.repository.organisationExists(id, manager))) throw ProblemException.notFound('The organisation');
      await this.repository.insertWorkers(manager, id, workers);
    });
    return workers.map((worker) => ({ id: worker.id, name: worker.name, email: worker.email, token: worker.token.token }));
  }

  async linkWorker(organisationId: string, workerId: string): Promise<void> {
    const found = await this.repository.linkWorker(existingId(organisationId, 'The organisation'), existingId(workerId, 'The worker'));
    if (!found.organisationFound) throw ProblemException.notFound('The organisation');
    if (!found.workerFound) throw ProblemException.notFound('The worker');
  }

  async issueWorkerToken(workerId: string): Promise<WorkerTokenView> {
    const token = issueWorkerToken();
    if (!(await this.repository.insertOwnedToken('worker', existingId(workerId, 'The worker'), token))) throw ProblemException.notFound('The worker');
    return { id: token.id, token: token.token };
  }

  async revokeWorkerToken(tokenId: string): Promise<void> {
    if (!(await this.tokens.revoke('worker', { id: existingId(tokenId, 'The worker token') }))) throw ProblemException.notFound('The worker token');
  }

  async issuePortalUserToken(userId: string): Promise<PortalUserTokenView> {
    const token = issuePortalUserToken();
    if (!(await this.repository.insertOwnedToken('user', existingId(userId, 'The user'), token))) throw ProblemException.notFound('The user');
    return { id: token.id, token: token.token };
  }

  async revokePortalUserToken(tokenId: string): Promise<void> {
    if (!(await this.tokens.revoke('user', { id: existingId(tokenId, 'The user token') }))) throw ProblemException.notFound('The user token');
  }
}
