import { expectStatus, request } from './http.js';

export type OrganisationKind = 'hirer' | 'agency' | 'integrator';

export interface CreatedOrganisation {
  id: string;
  name: string;
  kind: OrganisationKind;
  apiKey: { id: string; key: string };
}

export interface CreatedUser {
  id: string;
  organisationId: string;
  email: string;
  name: string;
  role: string;
}

export interface CreatedWorker {
  id: string;
  name: string;
  email: string | null;
  token: string;
}

/** contact-directory's operator API (organisations, keys, users, workers), used by the CLI, tests and benchmarks. */
export class DirectoryAdminClient {
  private readonly headers: Record<string, string>;

  constructor(
    readonly baseUrl: string,
    adminToken: string,
  ) {
    this.headers = { authorization: `Bearer ${adminToken}` };
  }

  async createOrganisation(name: string, kind: OrganisationKind): Promise<CreatedOrganisation> {
    return (await this.call<CreatedOrganisation>('POST', '/admin/organisations', { name, kind }, 201)).json;
  }

  /** An operator vouches for an organisation as a contact-suggestion provider (integrators are by kind). */
  async approveSuggestionProvider(organisationId: string, approved = true): Promise<void> {
    await this.call('PUT', `/admin/organisations/${organisationId}/suggestion-provider`, { approved }, 200);
  }

  async createApiKey(organisationId: string, name?: string): Promise<{ id: string; key: string }> {
    return (await this.call<{ id: string; key: string }>('POST', `/admin/organisations/${organisationId}/api-keys`, { name }, 201)).json;
  }

  async revokeApiKey(apiKeyId: string): Promise<void> {
    await this.call('DELETE', `/admin/api-keys/${apiKeyId}`, undefined, 204);
  }

  async createUser(organisationId: string, user: { email: string; name: string; role?: 'admin' | 'member' }): Promise<CreatedUser> {
    return (await this.call<CreatedUser>('POST', `/admin/organisations/${organisationId}/users`, user, 201)).json;
  }

  /** A portal sign-in token (`put_…`) for a user: shown once, the directory keeps only its hash. */
  async issuePortalToken(userId: string): Promise<{ id: string; token: string }> {
    return (await this.call<{ id: string; token: string }>('POST', `/admin/users/${userId}/tokens`, undefined, 201)).json;
  }

  async createWorkers(organisationId: string, workers: Array<{ name: string; email?: string }>): Promise<CreatedWorker[]> {
    const created: CreatedWorker[] = [];
    for (let i = 0; i < workers.length; i += 10_000) {
      const chunk = workers.slice(i, i + 10_000);
      created.push(...(await this.call<{ workers: CreatedWorker[] }>('POST', `/admin/organisations/${organisationId}/workers/bulk`, { workers: chunk }, 201)).json.workers);
    }
    return created;
  }

  async linkWorker(organisationId: string, workerId: string): Promise<void> {
    await this.call('PUT', `/admin/organisations/${organisationId}/workers/${workerId}`, undefined, 204);
  }

  async revokeWorkerToken(tokenId: string): Promise<void> {
    await this.call('DELETE', `/admin/worker-tokens/${tokenId}`, undefined, 204);
  }

  private async call<T>(method: string, path: string, body: unknown, status: number) {
    return expectStatus(await request<T>(this.baseUrl, method, path, { body, headers: this.headers }), status);
  }
}

/** An organisation ready to send offers: its key, one user, some workers. */
export interface SeededOrganisation {
  organisation: CreatedOrganisation;
  apiKey: string;
  user: CreatedUser;
  workers: CreatedWorker[];
}

export async function seedOrganisation(
  admin: DirectoryAdminClient,
  options: { name: string; kind?: OrganisationKind; workers: number; userEmail?: string },
): Promise<SeededOrganisation> {
  const organisation = await admin.createOrganisation(options.name, options.kind ?? 'agency');
  const user = await admin.createUser(organisation.id, {
    email: options.userEmail ?? `sender@${organisation.id.slice(0, 8)}.example`,
    name: `${options.name} sender`,
    role: 'admin',
  });
  const workers =
    options.workers > 0
      ? await admin.createWorkers(
          organisation.id,
          Array.from({ length: options.workers }, (_, i) => ({ name: `${options.name} worker ${i + 1}` })),
        )
      : [];
  return { organisation, apiKey: organisation.apiKey.key, user, workers };
}
