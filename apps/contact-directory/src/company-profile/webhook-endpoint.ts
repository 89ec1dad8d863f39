import { randomBytes, randomUUID } from 'node:crypto';
import { FAILURE_WORDS, type OutboundClient, type ProbeAnswer, type OutboundFailureKind, OutboundRequestError } from '@availability/outbound-http';
import { DEFAULT_SIGNATURE_SCHEMES, parseSignatureSchemes, type SignatureScheme, type SigningKey, signRequest, STALE_PROBE_AGE_SECONDS } from '@availability/webhook-signing';
import type { VerificationProbes } from './verification-verdict.js';

export const MAX_BASE_URL_LENGTH = 2000;
export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 256;
/** Visible ASCII only: what libs/webhook-signing accepts as a secret (no whitespace, no newline). */
const SECRET_PATTERN = /^[\x21-\x7e]+$/;

/** A base URL as stored: http(s), no credentials, query or fragment, no trailing slash. Or why not. */
export function parseBaseUrl(raw: unknown): { baseUrl: string } | { error: string } {
  if (typeof raw !== 'string' || raw.trim() === '') return { error: 'baseUrl must be an http or https URL' };
  if (raw.length > MAX_BASE_URL_LENGTH) return { error: `baseUrl must be at most ${MAX_BASE_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { error: 'baseUrl must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: 'baseUrl must use http or https' };
  if (url.username || url.password) return { error: 'baseUrl must not contain a user name or password' };
  if (url.search || url.hash || raw.includes('?') || raw.includes('#')) return { error: 'baseUrl must not have a query or fragment' };
  if (!url.hostname) return { error: 'baseUrl must name a host' };
  const baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  if (baseUrl.length > MAX_BASE_URL_LENGTH) return { error: `baseUrl must be at most ${MAX_BASE_URL_LENGTH} characters` };
  return { baseUrl };
}

/** Why a secret is not usable, or undefined. */
export function secretProblem(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return 'secret must be a string';
  if (raw.length < MIN_SECRET_LENGTH || raw.length > MAX_SECRET_LENGTH) {
    return `secret must be ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters`;
  }
  if (!SECRET_PATTERN.test(raw)) return 'secret must contain only visible ASCII characters (no spaces)';
  return undefined;
}

/**
 * Why a `signatureSchemes` value is not usable, or undefined. Any non-empty choice of `hmac`, `v1` and
 * `v1a` is allowed: `/test/auth` carries `hmac` whatever the choice (spec 5), the other calls only the
 * chosen schemes.
 */
export function signatureSchemesProblem(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  return parseSignatureSchemes(raw) === undefined ? 'signatureSchemes must be a non-empty list of "hmac", "v1" and "v1a"' : undefined;
}

/** What `/test/auth` is signed with: the spec's `Timestamp` + `Authorization` always, and the endpoint's own schemes. */
export function testAuthSchemes(schemes: readonly SignatureScheme[]): SignatureScheme[] {
  return parseSignatureSchemes(['hmac', ...schemes]) ?? ['hmac'];
}

/** `{base}{path}` for a stored base URL (which never ends in a slash). */
export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl}${path}`;
}

/** Path and query exactly as undici puts them on the request line (what the receiver verifies). */
export function requestTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

export type SetUpCall = '/test' | '/test/auth';

export interface EndpointCheckFailure {
  call: SetUpCall;
  /** Machine-readable cause: `status`, `redirect` or an OutboundRequestError kind (`timeout`, `unreachable`, `dns`, `tls`, `invalid-answer`, `forbidden-address`, `invalid-url`). */
  cause: string;
  /** Plain words for the organisation's admin, never containing the secret. */
  message: string;
  status?: number;
}

/**
 * In plain words, why a call did not get a 200: the outbound client's fixed reasons (libs/outbound-http
 * classify), with a hint where the admin can act. Nothing else of the error is passed on: the
 * organisation chooses the address, so any more would tell it about hosts the platform can reach.
 */
export function describeFailure(call: SetUpCall, error: unknown, timeoutMs: number): EndpointCheckFailure {
  const failure = error instanceof OutboundRequestError ? error : new OutboundRequestError('unreachable', FAILURE_WORDS.unreachable);
  const why: Record<OutboundFailureKind, string> = {
    timeout: `no answer within ${timeoutMs} ms (timeout)`,
    unreachable: `${FAILURE_WORDS.unreachable} (check the host name, the port, and http or https)`,
    dns: `${FAILURE_WORDS.dns} (DNS)`,
    tls: `TLS failed: ${failure.message}`,
    'invalid-answer': failure.message,
    'forbidden-address': `forbidden address: ${failure.message}; the platform does not call private, loopback or link-local addresses`,
    'invalid-url': `invalid URL: ${failure.message}`,
  };
  return { call, cause: failure.kind, message: `GET ${call} failed: ${why[failure.kind]}` };
}

export function describeStatus(call: SetUpCall, status: number): EndpointCheckFailure {
  if (status >= 300 && status < 400) {
    return { call, cause: 'redirect', status, message: `GET ${call} answered ${status}, a redirect; redirects are not followed, so use the final address` };
  }
  const hint = call === '/test/auth' && (status === 401 || status === 403) ? ' (the service did not accept the signature made with this secret)' : '';
  return { call, cause: 'status', status, message: `GET ${call} answered HTTP ${status} instead of 200${hint}` };
}

/**
 * The company-profile check (spec 5, 7.1): `GET {base}/test` without authentication, then
 * `GET {base}/test/auth` signed with the new secret (`hmac`, which the spec requires there, plus the
 * endpoint's chosen schemes, so an integrator can try its `v1a` verification too). Both must answer 200.
 */
export class WebhookEndpointChecker {
  constructor(
    private readonly client: OutboundClient,
    private readonly timeoutMs: number,
    /** The platform's active ed25519 key, for endpoints that chose `v1a`. */
    private readonly signingKey?: SigningKey,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async check(baseUrl: string, secret: string, schemes: readonly SignatureScheme[] = DEFAULT_SIGNATURE_SCHEMES): Promise<EndpointCheckFailure | undefined> {
    const test = endpointUrl(baseUrl, '/test');
    const first = await this.get('/test', test, {});
    if (first) return first;
    const auth = endpointUrl(baseUrl, '/test/auth');
    return this.get('/test/auth', auth, this.signAuth(auth, secret, testAuthSchemes(schemes), this.clock()));
  }

  /**
   * The two `/test/auth` calls a verifying endpoint refuses (spec 5.3), sent after {@link check} passed:
   * one signed with a random secret (its `v1a` left out, since the platform's key would make it genuine),
   * one signed correctly {@link STALE_PROBE_AGE_SECONDS} ago. What the answers mean: VerificationPolicy.
   */
  async probe(baseUrl: string, secret: string, schemes: readonly SignatureScheme[] = DEFAULT_SIGNATURE_SCHEMES): Promise<VerificationProbes> {
    const auth = endpointUrl(baseUrl, '/test/auth');
    const now = this.clock();
    const withoutKey = testAuthSchemes(schemes).filter((scheme) => scheme !== 'v1a');
    const wrongSecret = this.signAuth(auth, `wrong-${randomBytes(24).toString('base64url')}`, withoutKey, now);
    const stale = this.signAuth(auth, secret, testAuthSchemes(schemes), new Date(now.getTime() - STALE_PROBE_AGE_SECONDS * 1000));
    return { wrongSecret: await this.answer(auth, wrongSecret), stale: await this.answer(auth, stale) };
  }

  private signAuth(url: string, secret: string, schemes: readonly SignatureScheme[], now: Date): Record<string, string> {
    return signRequest({
      secrets: [secret],
      schemes,
      signingKey: schemes.includes('v1a') ? this.signingKey : undefined,
      method: 'GET',
      pathWithQuery: requestTarget(url),
      body: '',
      webhookId: `test-${randomUUID()}`,
      now,
    });
  }

  private async answer(url: string, headers: Record<string, string>): Promise<ProbeAnswer> {
    try {
      const response = await this.client.send({ url, method: 'GET', headers, timeoutMs: this.timeoutMs, maxResponseBytes: 1024 });
      return { status: response.status };
    } catch (error) {
      return { failed: error instanceof OutboundRequestError ? error.kind : 'unreachable' };
    }
  }

  private async get(call: SetUpCall, url: string, headers: Record<string, string>): Promise<EndpointCheckFailure | undefined> {
    try {
      const response = await this.client.send({ url, method: 'GET', headers, timeoutMs: this.timeoutMs, maxResponseBytes: 1024 });
      return response.status === 200 ? undefined : describeStatus(call, response.status);
    } catch (error) {
      return describeFailure(call, error, this.timeoutMs);
    }
  }
}
