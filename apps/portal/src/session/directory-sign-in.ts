import { Injectable, Logger } from '@nestjs/common';
import type { SignInSessionView } from '@availability/contracts';
import { type HttpResult, request } from '@availability/platform-client';
import { type FieldErrors, ProblemException } from '@availability/service-core';
import { PortalConfig } from '../config/portal.config.js';
import type { PortalSession, SignedInPerson } from './portal-session.js';

const DIRECTORY_TIMEOUT_MS = 5_000;

/**
 * Sign-in, as contact-directory runs it: links e-mailed to a person, a code redeemed for a session
 * token, and the token revoked at sign-out. The portal keeps the session and sets the cookie.
 */
@Injectable()
export class DirectorySignIn {
  private readonly logger = new Logger('DirectorySignIn');

  constructor(private readonly config: PortalConfig) {}

  /**
   * `clientAddress` is the browser's, as this service sees it: the directory limits links per client
   * address, and believes the header from the portal where its TRUST_PROXY names the portal.
   */
  async requestLinks(body: { email: string; audience: 'portal' | 'worker' }, clientAddress: string): Promise<unknown> {
    return expectOk(await this.call('POST', '/sign-in/links', { body, headers: { 'x-forwarded-for': clientAddress } }), 202).json;
  }

  async redeem(code: string): Promise<PortalSession> {
    const session = expectOk(await this.call<SignInSessionView>('POST', '/sign-in/sessions', { body: { code } }), 201).json;
    return { token: session.token, person: personOf(session) };
  }

  /**
   * Revokes the token at the directory, or leaves it to expire when the directory cannot be told now:
   * the portal calls this once it holds the token nowhere any more. Never logs the token.
   */
  async revoke(token: string): Promise<void> {
    try {
      const result = await this.call('DELETE', '/sign-in/session', { headers: { authorization: `Bearer ${token}` } });
      // Already revoked or expired: nothing more to do.
      if (result.status !== 204 && result.status !== 401) expectOk(result, 204);
    } catch (error) {
      this.logger.warn(`a token given up by the portal could not be revoked at the directory, and expires on its own: ${(error as Error).message}`);
    }
  }

  private async call<T>(method: string, path: string, options: Parameters<typeof request>[3]): Promise<HttpResult<T>> {
    try {
      return await request<T>(this.config.DIRECTORY_URL, method, path, { ...options, timeoutMs: DIRECTORY_TIMEOUT_MS });
    } catch {
      throw directoryUnavailable();
    }
  }
}

function personOf(session: SignInSessionView): SignedInPerson {
  if (session.kind === 'portal-user' && session.user) {
    const { id, name, organisationId, organisationName, role } = session.user;
    return { kind: 'portal-user', id, name, organisationId, organisationName, role, expiresAt: session.expiresAt };
  }
  if (session.kind === 'worker' && session.worker) {
    const organisations = session.worker.organisations.map((organisation) => ({ id: organisation.organisationId, name: organisation.organisationName }));
    return { kind: 'worker', id: session.worker.id, name: session.worker.name, organisations, expiresAt: session.expiresAt };
  }
  throw directoryUnavailable();
}

/** The directory's own problem for anything the person can correct; its failures are a 503 here. */
function expectOk<T>(result: HttpResult<T>, status: number): HttpResult<T> {
  if (result.status === status) return result;
  const problem = result.json as { type?: string; detail?: string; errors?: FieldErrors } | undefined;
  if (result.status >= 400 && result.status < 500 && typeof problem?.type === 'string') {
    const retryAfter = result.headers.get('retry-after');
    throw new ProblemException(result.status, problem.type.split('/').pop() ?? 'http-error', problem.detail ?? '', problem.errors, retryAfter ? { 'Retry-After': retryAfter } : {});
  }
  throw directoryUnavailable();
}

function directoryUnavailable(): ProblemException {
  return new ProblemException(503, 'directory-unavailable', 'Sign-in is unavailable for a moment; try again shortly.', undefined, { 'Retry-After': '1' });
}
