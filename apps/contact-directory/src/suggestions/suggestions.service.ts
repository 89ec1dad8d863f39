import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  type SuggestedContactView,
  type SuggestionProviderChoiceView,
  type SuggestionProvidersView,
  type SuggestionsSearchView,
  WEBHOOK_TARGET_CHANGED_SUBJECT,
  isUuid,
} from '@availability/contracts';
import { RequestReply } from '@availability/messaging';
import { ProblemException, TtlCache } from '@availability/service-core';
import { SecretBox } from '../company-profile/secret-box.js';
import { enabledOf } from '../portal/enabled-body.js';
import type { PortalPrincipal } from '../portal/portal-auth.guard.js';
import { PortalRepository, type StoredTarget } from '../portal/portal.repository.js';
import { ImageReferences } from './image-references.js';
import { type MergedSuggestion, SuggestionFanOut, type SuggestionProvider } from './suggestion-fan-out.js';
import { SuggestionImages } from './suggestion-images.js';

export const MAX_FILTER_LENGTH = 200;
export const MAX_SEARCHED_ORGANISATIONS = 100;
/**
 * Searches reuse the list of providers (with decrypted secrets) for this long. Changes on this
 * instance and WEBHOOK_TARGET_CHANGED broadcasts from others drop it at once, so this only bounds
 * staleness when a broadcast is lost.
 */
export const PROVIDERS_CACHE_MS = 2_000;
/** A portal user's e-mail address cannot change through our APIs; cached to spare a query per search. */
export const USER_EMAIL_CACHE_MS = 60_000;

export interface SuggestionsSearch {
  filter?: string;
  organisationIds?: string[];
}

/** Parses the search body by hand: one field error per problem, 400 otherwise. */
export function parseSearch(body: unknown): SuggestionsSearch {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw ProblemException.validation({ body: ['must be a JSON object'] });
  const { filter, organisationIds } = body as Record<string, unknown>;
  const errors: Record<string, string[]> = {};
  if (filter !== undefined && filter !== null && (typeof filter !== 'string' || filter.length > MAX_FILTER_LENGTH)) {
    errors.filter = [`filter must be a string of at most ${MAX_FILTER_LENGTH} characters`];
  }
  if (organisationIds !== undefined && organisationIds !== null) {
    if (!Array.isArray(organisationIds) || organisationIds.length > MAX_SEARCHED_ORGANISATIONS) {
      errors.organisationIds = [`organisationIds must be an array of at most ${MAX_SEARCHED_ORGANISATIONS} organisation ids`];
    } else {
      organisationIds.forEach((id, index) => {
        if (!isUuid(id)) errors[`organisationIds[${index}]`] = ['must be an organisation id (uuid)'];
      });
    }
  }
  if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
  const search: SuggestionsSearch = {};
  if (typeof filter === 'string' && filter.trim() !== '') search.filter = filter.trim();
  if (Array.isArray(organisationIds)) search.organisationIds = [...new Set(organisationIds.map((id) => (id as string).toLowerCase()))];
  return search;
}

/** The Invites page's contact-suggestion search (spec 1.6, 2.6–2.8; DESIGN 4). */
@Injectable()
export class SuggestionsService implements OnApplicationBootstrap {
  private providerCache?: { until: number; providers: SuggestionProvider[] };
  private readonly emails = new TtlCache<string, string>(10_000);

  constructor(
    private readonly repository: PortalRepository,
    private readonly box: SecretBox,
    private readonly fanOut: SuggestionFanOut,
    private readonly rpc: RequestReply,
    private readonly imageReferences: ImageReferences,
    private readonly images: SuggestionImages,
  ) {}

  onApplicationBootstrap(): void {
    this.rpc.subscribe(WEBHOOK_TARGET_CHANGED_SUBJECT, () => this.forgetProviders());
  }

  forgetProviders(): void {
    this.providerCache = undefined;
  }

  /** Every provider, and whether the user's organisation sends its searches there when it names none. */
  async providers(user: PortalPrincipal): Promise<SuggestionProvidersView> {
    const [rows, chosen] = await Promise.all([this.repository.suggestionProviders(null), this.repository.chosenProviders(user.organisationId)]);
    return { providers: rows.map((row) => ({ organisationId: row.organisationId, name: row.name, enabled: chosen.has(row.organisationId) })) };
  }

  /** An admin chooses whether the organisation's searches go to a provider by default. */
  async chooseProvider(user: PortalPrincipal, providerId: string, body: unknown): Promise<SuggestionProviderChoiceView> {
    const enabled = enabledOf(body);
    const [provider] = isUuid(providerId) ? await this.repository.suggestionProviders([providerId.toLowerCase()]) : [];
    if (!provider) throw ProblemException.notFound('The suggestion provider');
    await this.repository.chooseProvider(user.organisationId, provider.organisationId, user.userId, enabled);
    return { organisationId: provider.organisationId, name: provider.name, enabled };
  }

  /**
   * Asks the providers the search names, or, when it names none, the providers the user's
   * organisation has enabled: a user's e-mail address goes only where the user or an admin chose.
   */
  async search(user: PortalPrincipal, body: unknown): Promise<SuggestionsSearchView> {
    const search = parseSearch(body);
    const email = await this.userEmail(user.userId);
    const organisationIds = search.organisationIds ?? [...(await this.repository.chosenProviders(user.organisationId))];
    if (organisationIds.length === 0) return { suggestions: [], providers: [] };
    const byId = new Map((await this.allProviders()).map((provider) => [provider.organisationId, provider]));
    const providers = organisationIds
      .map(
        (organisationId): SuggestionProvider =>
          byId.get(organisationId) ?? { organisationId, name: null, baseUrl: null, secrets: [], unavailable: 'the organisation does not offer contact suggestions' },
      )
      // Chosen providers that stopped offering suggestions are left out rather than reported.
      .filter((provider) => search.organisationIds !== undefined || provider.unavailable === undefined);
    if (providers.length === 0) return { suggestions: [], providers: [] };
    const request = search.filter === undefined ? { userEmailAddresses: [email] } : { filter: search.filter, userEmailAddresses: [email] };
    const result = await this.fanOut.search(providers, request);
    return { suggestions: result.suggestions.map((suggestion) => this.shown(suggestion, user.organisationId)), providers: result.providers };
  }

  /**
   * The platform's copy of a provider's image, for a reference from one of the organisation's
   * searches. 404 for a reference that is not the organisation's (forged, expired, another's);
   * 502 when the provider's image cannot be fetched or is not an allowed image.
   */
  async image(user: PortalPrincipal, reference: unknown): Promise<{ type: string; bytes: Buffer }> {
    const url = this.imageReferences.open(reference, user.organisationId);
    if (url === undefined) throw ProblemException.notFound('The image');
    const result = await this.images.get(url);
    if (!result.ok) throw new ProblemException(502, 'suggestion-image-unavailable', `The provider's image could not be shown: ${result.error}.`);
    return result;
  }

  /** A suggestion as the page gets it: the provider's image URL replaced by a reference to the platform's copy. */
  private shown(suggestion: MergedSuggestion, organisationId: string): SuggestedContactView {
    const { profileImageUrl, ...rest } = suggestion;
    return profileImageUrl === undefined ? rest : { ...rest, profileImagePath: this.imageReferences.path(profileImageUrl, organisationId) };
  }

  private async userEmail(userId: string): Promise<string> {
    const cached = this.emails.get(userId);
    if (cached !== undefined) return cached;
    const me = await this.repository.portalUser(userId);
    if (!me) throw ProblemException.unauthorized('The portal user no longer exists.');
    this.emails.set(userId, me.email, USER_EMAIL_CACHE_MS);
    return me.email;
  }

  private async allProviders(): Promise<SuggestionProvider[]> {
    const cached = this.providerCache;
    if (cached && cached.until > Date.now()) return cached.providers;
    const providers = (await this.repository.suggestionProviders(null)).map((row) => this.provider(row));
    this.providerCache = { until: Date.now() + PROVIDERS_CACHE_MS, providers };
    return providers;
  }

  private provider(row: StoredTarget): SuggestionProvider {
    const current = this.box.open(row.secretSealed, row.organisationId);
    const previous = row.previousSecretSealed ? this.box.open(row.previousSecretSealed, row.organisationId) : undefined;
    const secrets = current === undefined ? [] : previous !== undefined && previous !== current ? [current, previous] : [current];
    return { organisationId: row.organisationId, name: row.name, baseUrl: row.baseUrl, secrets, signatureSchemes: row.signatureSchemes };
  }
}
