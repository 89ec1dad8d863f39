import { randomUUID } from 'node:crypto';
import { type OutboundClient, OutboundRequestError } from '@availability/outbound-http';
import { signRequest } from '@availability/webhook-signing';
import { endpointUrl, requestTarget } from '../company-profile/webhook-endpoint.js';
import { type ContactSuggestion, parseSuggestionsReply, type Rating } from './suggestion-validation.js';

/** An organisation that answers contact-suggestion searches, with what is needed to call it. */
export interface SuggestionProvider {
  organisationId: string;
  name: string | null;
  baseUrl: string | null;
  /** Signing secrets, newest first (two during a rotation). Empty: cannot be called. */
  secrets: string[];
  /** Set when the provider is not called at all (e.g. it does not offer suggestions). */
  unavailable?: string;
}

/** Spec 2.6. */
export interface SuggestionsRequest {
  filter?: string;
  userEmailAddresses: string[];
}

export type ProviderStatus = 'ok' | 'timeout' | 'error' | 'invalid';

export interface ProviderOutcome {
  organisationId: string;
  name: string | null;
  status: ProviderStatus;
  /** Valid suggestions the provider returned (before de-duplication across providers). */
  returned: number;
  /** Elements of its reply that were invalid or over the per-provider limit. */
  dropped: number;
  durationMs: number;
  error?: string;
}

export interface MergedSuggestion extends ContactSuggestion {
  /** The first provider (in provider order) that suggested this e-mail address. */
  organisationId: string;
  /** Every provider that suggested it. */
  organisationIds: string[];
}

export interface SuggestionsResult {
  suggestions: MergedSuggestion[];
  providers: ProviderOutcome[];
}

export interface FanOutOptions {
  timeoutMs: number;
  maxReplyBytes: number;
  maxPerProvider: number;
}

/** Grace on top of the HTTP timeout before a call is abandoned regardless (belt and braces). */
const ABANDON_AFTER_MS = 50;

/**
 * Asks every provider at once (spec 2.6, signed like every call but /test), with a per-call timeout,
 * and returns whatever arrived in time. A slow, failing or malformed provider only marks its own
 * outcome; it never fails the search.
 */
export class SuggestionFanOut {
  constructor(
    private readonly client: OutboundClient,
    private readonly options: FanOutOptions,
  ) {}

  async search(providers: SuggestionProvider[], request: SuggestionsRequest): Promise<SuggestionsResult> {
    const body = JSON.stringify(request.filter === undefined ? { userEmailAddresses: request.userEmailAddresses } : request);
    const answers = await Promise.all(providers.map((provider) => this.ask(provider, body)));
    return {
      suggestions: mergeSuggestions(answers.map((answer, index) => ({ organisationId: providers[index].organisationId, suggestions: answer.suggestions }))),
      providers: answers.map((answer) => answer.outcome),
    };
  }

  private async ask(provider: SuggestionProvider, body: string): Promise<{ outcome: ProviderOutcome; suggestions: ContactSuggestion[] }> {
    const started = performance.now();
    const outcome = (status: ProviderStatus, returned: number, dropped: number, error?: string): ProviderOutcome => {
      const result: ProviderOutcome = {
        organisationId: provider.organisationId,
        name: provider.name,
        status,
        returned,
        dropped,
        durationMs: Math.round(performance.now() - started),
      };
      if (error !== undefined) result.error = error;
      return result;
    };
    if (provider.unavailable) return { outcome: outcome('error', 0, 0, provider.unavailable), suggestions: [] };
    if (!provider.baseUrl || provider.secrets.length === 0) {
      return { outcome: outcome('error', 0, 0, 'the organisation has no usable webhook set-up'), suggestions: [] };
    }
    const url = endpointUrl(provider.baseUrl, '/contact-suggestions');
    let timer: NodeJS.Timeout | undefined;
    const abandoned = new Promise<'abandoned'>((resolve) => {
      timer = setTimeout(() => resolve('abandoned'), this.options.timeoutMs + ABANDON_AFTER_MS);
    });
    try {
      const headers = {
        ...signRequest({ secrets: provider.secrets.slice(0, 2), method: 'POST', pathWithQuery: requestTarget(url), body, webhookId: `suggest-${randomUUID()}` }),
        'content-type': 'application/json',
        accept: 'application/json',
      };
      const response = await Promise.race([
        this.client.send({ url, method: 'POST', headers, body, timeoutMs: this.options.timeoutMs, maxResponseBytes: this.options.maxReplyBytes }),
        abandoned,
      ]);
      if (response === 'abandoned') return { outcome: outcome('timeout', 0, 0, `no answer within ${this.options.timeoutMs} ms`), suggestions: [] };
      if (response.status !== 200) return { outcome: outcome('error', 0, 0, `answered HTTP ${response.status} instead of 200`), suggestions: [] };
      const verdict = parseSuggestionsReply(response.body, response.truncated, this.options.maxPerProvider, this.options.maxReplyBytes);
      if (verdict.status === 'invalid') return { outcome: outcome('invalid', 0, 0, verdict.error), suggestions: [] };
      return { outcome: outcome('ok', verdict.suggestions.length, verdict.dropped), suggestions: verdict.suggestions };
    } catch (error) {
      if (error instanceof OutboundRequestError && error.kind === 'timeout') {
        return { outcome: outcome('timeout', 0, 0, `no answer within ${this.options.timeoutMs} ms`), suggestions: [] };
      }
      const message = error instanceof OutboundRequestError ? `${error.kind}: ${error.message}` : 'the call failed';
      return { outcome: outcome('error', 0, 0, message), suggestions: [] };
    } finally {
      clearTimeout(timer);
    }
  }
}

const ratingKey = (rating: Rating) => `${rating.rating}\u0000${rating.ratingProvider}\u0000${rating.lastWorked}`;

/**
 * De-duplicates by e-mail address, ignoring case. The first occurrence (providers in the order
 * given, then reply order) keeps its name, address and image; the ratings of every occurrence are
 * merged (identical ratings once), and every suggesting provider is listed.
 */
export function mergeSuggestions(perProvider: Array<{ organisationId: string; suggestions: ContactSuggestion[] }>): MergedSuggestion[] {
  const byEmail = new Map<string, { merged: MergedSuggestion; ratingKeys: Set<string> }>();
  for (const { organisationId, suggestions } of perProvider) {
    for (const suggestion of suggestions) {
      const key = suggestion.emailAddress.trim().toLowerCase();
      const existing = byEmail.get(key);
      if (!existing) {
        byEmail.set(key, {
          merged: { ...suggestion, ratings: [...suggestion.ratings], organisationId, organisationIds: [organisationId] },
          ratingKeys: new Set(suggestion.ratings.map(ratingKey)),
        });
        continue;
      }
      if (!existing.merged.organisationIds.includes(organisationId)) existing.merged.organisationIds.push(organisationId);
      if (existing.merged.profileImageUrl === undefined && suggestion.profileImageUrl !== undefined) existing.merged.profileImageUrl = suggestion.profileImageUrl;
      for (const rating of suggestion.ratings) {
        const ratingId = ratingKey(rating);
        if (existing.ratingKeys.has(ratingId)) continue;
        existing.ratingKeys.add(ratingId);
        existing.merged.ratings.push(rating);
      }
    }
  }
  return [...byEmail.values()].map((entry) => entry.merged);
}
