import { randomUUID } from 'node:crypto';
import { type OutboundClient, OutboundRequestError } from '@availability/outbound-http';
import {
  createRequestSigner,
  DEFAULT_SIGNATURE_SCHEMES,
  type RequestSigner,
  type SchemeSignedHeaders,
  type SignatureScheme,
  type SigningKey,
} from '@availability/webhook-signing';
import { endpointUrl, requestTarget } from '../company-profile/webhook-endpoint.js';
import { type ContactSuggestion, parseSuggestionsReply, type Rating } from './suggestion-validation.js';

/**
 * An organisation that answers contact-suggestion searches, with what is needed to call it. Treated as
 * immutable: the fan-out prepares each provider object once (URL, signing keys), so a changed set-up
 * must come as a new object.
 */
export interface SuggestionProvider {
  organisationId: string;
  name: string | null;
  baseUrl: string | null;
  /** Signing secrets, newest first (two during a rotation). Empty: cannot be called. */
  secrets: string[];
  /** How its calls are signed (its company profile's choice); absent: `hmac` and `v1`. */
  signatureSchemes?: SignatureScheme[];
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
  /** The platform's active ed25519 key, for providers that chose `v1a`. */
  signingKey?: SigningKey;
}

/** Grace on top of the HTTP timeout before a search stops waiting regardless (belt and braces). */
const ABANDON_AFTER_MS = 50;

/** What is fixed per provider (until its set-up changes): where to call and how to sign. */
type Prepared = { url: string; signer: RequestSigner<SchemeSignedHeaders> } | { error: string };

interface Answer {
  outcome: ProviderOutcome;
  suggestions: ContactSuggestion[];
}

const NO_SUGGESTIONS: ContactSuggestion[] = [];

/**
 * Asks every provider at once (spec 2.6, signed like every call but /test), with a per-call timeout,
 * and returns whatever arrived in time. A slow, failing or malformed provider only marks its own
 * outcome; it never fails the search.
 */
export class SuggestionFanOut {
  /** Keyed by the provider objects, which the service keeps while the set-up is unchanged. */
  private readonly prepared = new WeakMap<SuggestionProvider, Prepared>();

  constructor(
    private readonly client: OutboundClient,
    private readonly options: FanOutOptions,
  ) {}

  search(providers: SuggestionProvider[], request: SuggestionsRequest): Promise<SuggestionsResult> {
    // One body for every provider: serialised once, signed per provider with its own secret.
    const body = Buffer.from(JSON.stringify(request.filter === undefined ? { userEmailAddresses: request.userEmailAddresses } : request));
    const started = performance.now();
    const answers: Array<Answer | undefined> = new Array(providers.length).fill(undefined);
    return new Promise((resolve) => {
      let waiting = providers.length;
      let timer: NodeJS.Timeout | undefined;
      const finish = () => {
        clearTimeout(timer);
        timer = undefined;
        const complete = answers.map(
          (answer, index) => answer ?? this.answer(providers[index], started, 'timeout', 0, 0, `no answer within ${this.options.timeoutMs} ms`),
        );
        resolve({
          suggestions: mergeSuggestions(complete.map((answer, index) => ({ organisationId: providers[index].organisationId, suggestions: answer.suggestions }))),
          providers: complete.map((answer) => answer.outcome),
        });
      };
      if (waiting === 0) return finish();
      // One timer per search, not per call: the calls time out on their own; this only guarantees the page an answer.
      timer = setTimeout(() => {
        waiting = -1;
        finish();
      }, this.options.timeoutMs + ABANDON_AFTER_MS);
      providers.forEach((provider, index) => {
        void this.ask(provider, body, started)
          .catch(() => this.answer(provider, started, 'error', 0, 0, 'the call failed'))
          .then((answer) => {
            if (waiting <= 0) return;
            answers[index] = answer;
            waiting -= 1;
            if (waiting === 0) finish();
          });
      });
    });
  }

  private answer(provider: SuggestionProvider, started: number, status: ProviderStatus, returned: number, dropped: number, error?: string, suggestions = NO_SUGGESTIONS): Answer {
    const outcome: ProviderOutcome = {
      organisationId: provider.organisationId,
      name: provider.name,
      status,
      returned,
      dropped,
      durationMs: Math.round(performance.now() - started),
    };
    if (error !== undefined) outcome.error = error;
    return { outcome, suggestions };
  }

  private prepare(provider: SuggestionProvider): Prepared {
    let prepared = this.prepared.get(provider);
    if (prepared) return prepared;
    if (provider.unavailable) prepared = { error: provider.unavailable };
    else if (!provider.baseUrl || provider.secrets.length === 0) prepared = { error: 'the organisation has no usable webhook set-up' };
    else {
      const url = endpointUrl(provider.baseUrl, '/contact-suggestions');
      try {
        const signer = createRequestSigner({
          secrets: provider.secrets.slice(0, 2),
          schemes: provider.signatureSchemes ?? DEFAULT_SIGNATURE_SCHEMES,
          signingKey: this.options.signingKey,
          method: 'POST',
          pathWithQuery: requestTarget(url),
        });
        prepared = { url, signer };
      } catch {
        prepared = { error: 'the call failed' };
      }
    }
    this.prepared.set(provider, prepared);
    return prepared;
  }

  private async ask(provider: SuggestionProvider, body: Buffer, started: number): Promise<Answer> {
    const prepared = this.prepare(provider);
    if ('error' in prepared) return this.answer(provider, started, 'error', 0, 0, prepared.error);
    const { timeoutMs, maxReplyBytes, maxPerProvider } = this.options;
    try {
      const headers: Record<string, string> = prepared.signer.sign(body, `suggest-${randomUUID()}`);
      headers['content-type'] = 'application/json';
      headers.accept = 'application/json';
      const response = await this.client.send({ url: prepared.url, method: 'POST', headers, body, timeoutMs, maxResponseBytes: maxReplyBytes });
      if (response.status !== 200) return this.answer(provider, started, 'error', 0, 0, `answered HTTP ${response.status} instead of 200`);
      const verdict = parseSuggestionsReply(response.body, response.truncated, maxPerProvider, maxReplyBytes);
      if (verdict.status === 'invalid') return this.answer(provider, started, 'invalid', 0, 0, verdict.error);
      return this.answer(provider, started, 'ok', verdict.suggestions.length, verdict.dropped, undefined, verdict.suggestions);
    } catch (error) {
      if (error instanceof OutboundRequestError && error.kind === 'timeout') {
        return this.answer(provider, started, 'timeout', 0, 0, `no answer within ${timeoutMs} ms`);
      }
      const message = error instanceof OutboundRequestError ? `${error.kind}: ${error.message}` : 'the call failed';
      return this.answer(provider, started, 'error', 0, 0, message);
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
  // Keys of the ratings an address already has, built only once a second occurrence turns up.
  const byEmail = new Map<string, { merged: MergedSuggestion; ratingKeys: Set<string> | undefined }>();
  const result: MergedSuggestion[] = [];
  for (const { organisationId, suggestions } of perProvider) {
    for (const suggestion of suggestions) {
      const key = suggestion.emailAddress.trim().toLowerCase();
      const existing = byEmail.get(key);
      if (existing === undefined) {
        // Built field by field (in the order validateSuggestion gives them): object spread is far
        // slower here, and this runs for every suggestion.
        const merged: MergedSuggestion =
          suggestion.profileImageUrl === undefined
            ? { name: suggestion.name, emailAddress: suggestion.emailAddress, ratings: suggestion.ratings.slice(), organisationId, organisationIds: [organisationId] }
            : {
                name: suggestion.name,
                emailAddress: suggestion.emailAddress,
                ratings: suggestion.ratings.slice(),
                profileImageUrl: suggestion.profileImageUrl,
                organisationId,
                organisationIds: [organisationId],
              };
        byEmail.set(key, { merged, ratingKeys: undefined });
        result.push(merged);
        continue;
      }
      const merged = existing.merged;
      if (!merged.organisationIds.includes(organisationId)) merged.organisationIds.push(organisationId);
      if (merged.profileImageUrl === undefined && suggestion.profileImageUrl !== undefined) merged.profileImageUrl = suggestion.profileImageUrl;
      const ratingKeys = (existing.ratingKeys ??= new Set(merged.ratings.map(ratingKey)));
      for (const rating of suggestion.ratings) {
        const ratingId = ratingKey(rating);
        if (ratingKeys.has(ratingId)) continue;
        ratingKeys.add(ratingId);
        merged.ratings.push(rating);
      }
    }
  }
  return result;
}
