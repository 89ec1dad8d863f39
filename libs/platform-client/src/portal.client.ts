import type {
  CompanyProfileView,
  ContactSuggestionView,
  SuggestionProviderChoiceView,
  SuggestionProviderOutcomeView,
  SuggestionRatingView,
  SuggestionsSearchView,
} from '@availability/contracts';
import { expectStatus, request } from './http.js';

// The portal's answers, as contact-directory documents them (libs/contracts views).
export type CompanyProfile = CompanyProfileView;
export type ContactSuggestionResult = ContactSuggestionView;
export type SuggestionProviderChoice = SuggestionProviderChoiceView;
export type SuggestionProviderOutcome = SuggestionProviderOutcomeView;
export type SuggestionRating = SuggestionRatingView;
export type SuggestionsSearchResult = SuggestionsSearchView;

/** Issues a portal sign-in token (`put_…`) to a portal user through contact-directory's admin API. */
export async function issuePortalUserToken(directoryUrl: string, adminToken: string, userId: string): Promise<{ id: string; token: string }> {
  const result = await request<{ id: string; token: string }>(directoryUrl, 'POST', `/admin/users/${userId}/tokens`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  return expectStatus(result, 201).json;
}

/** contact-directory's portal API, as a signed-in portal user (`put_…` token). */
export class PortalClient {
  private readonly headers: Record<string, string>;

  constructor(
    readonly baseUrl: string,
    userToken: string,
  ) {
    this.headers = { authorization: `Bearer ${userToken}` };
  }

  async companyProfile(): Promise<CompanyProfile> {
    return (await this.call<CompanyProfile>('GET', '/portal/company-profile', undefined, 200)).json;
  }

  /**
   * Saves base URL and secret (the service calls /test and /test/auth first); throws HttpError on 422.
   * Without `signatureSchemes` the saved choice stays (`["hmac", "v1"]` for a new profile).
   */
  async saveWebhook(baseUrl: string, secret: string, signatureSchemes?: CompanyProfile['signatureSchemes']): Promise<CompanyProfile> {
    return (await this.call<CompanyProfile>('PUT', '/portal/company-profile/webhook', { baseUrl, secret, signatureSchemes }, 200)).json;
  }

  async deleteWebhook(): Promise<void> {
    await this.call('DELETE', '/portal/company-profile/webhook', undefined, 204);
  }

  async setSuggestionsEnabled(enabled: boolean): Promise<CompanyProfile> {
    return (await this.call<CompanyProfile>('PUT', '/portal/company-profile/suggestions', { enabled }, 200)).json;
  }

  async suggestionProviders(): Promise<SuggestionProviderChoice[]> {
    return (await this.call<{ providers: SuggestionProviderChoice[] }>('GET', '/portal/suggestion-providers', undefined, 200)).json.providers;
  }

  /** Whether searches that name no provider go to this one (organisation admins only). */
  async chooseSuggestionProvider(organisationId: string, enabled: boolean): Promise<SuggestionProviderChoice> {
    return (await this.call<SuggestionProviderChoice>('PUT', `/portal/suggestion-providers/${organisationId}`, { enabled }, 200)).json;
  }

  async searchSuggestions(search: { filter?: string; organisationIds?: string[] } = {}): Promise<SuggestionsSearchResult> {
    return (await this.call<SuggestionsSearchResult>('POST', '/portal/contact-suggestions/search', search, 200)).json;
  }

  async invite(
    invitations: Array<{ name: string; emailAddress: string; suggestedByOrganisationId?: string }>,
  ): Promise<Array<{ id: string; emailAddress: string; created: boolean }>> {
    return (await this.call<{ invitations: Array<{ id: string; emailAddress: string; created: boolean }> }>('POST', '/portal/invitations', { invitations }, 201)).json
      .invitations;
  }

  private async call<T>(method: string, path: string, body: unknown, status: number) {
    return expectStatus(await request<T>(this.baseUrl, method, path, { body, headers: this.headers }), status);
  }
}

/** contact-directory's worker-app API for contacts, as a worker (`wkt_…` token). */
export class WorkerContactsClient {
  private readonly headers: Record<string, string>;

  constructor(
    readonly baseUrl: string,
    workerToken: string,
  ) {
    this.headers = { authorization: `Bearer ${workerToken}` };
  }

  /** True when newly added (201), false when it already was a contact (200). */
  async addContact(organisationId: string): Promise<boolean> {
    const result = await request<{ created: boolean }>(this.baseUrl, 'PUT', `/worker/contacts/${organisationId}`, { headers: this.headers });
    if (result.status !== 201 && result.status !== 200) expectStatus(result, 201);
    return result.status === 201;
  }

  async contacts(): Promise<Array<{ id: string; organisationId: string; organisationName: string; addedAt: string }>> {
    const result = await request<{ contacts: Array<{ id: string; organisationId: string; organisationName: string; addedAt: string }> }>(
      this.baseUrl,
      'GET',
      '/worker/contacts',
      { headers: this.headers },
    );
    return expectStatus(result, 200).json.contacts;
  }
}
