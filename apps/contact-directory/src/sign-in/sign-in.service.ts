import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { CredentialVerifier, hashToken } from '@availability/auth';
import { EventSubject, type SignInLinksAcceptedView, type SignInLinksDto, type SignInRequestedEvent, type SignInSessionView } from '@availability/contracts';
import { OutboxRelay, outboxMessage } from '@availability/messaging';
import { KeyedRateLimit, ProblemException, rateLimitOptions } from '@availability/service-core';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { issuePortalUserToken, issueWorkerToken } from '../credentials/credential-tokens.js';
import { TokenRevocation } from '../credentials/token-revocation.js';
import { DirectoryRepository } from '../directory/directory.repository.js';
import { signInCodeHash } from './sign-in-codes.js';
import { SignInRepository } from './sign-in.repository.js';

const HOUR_MS = 3_600_000;
/** As the guards: a longer credential is never valid. */
const MAX_TOKEN_LENGTH = 512;

export const SIGN_IN_LINKS_ACCEPTED: SignInLinksAcceptedView = {
  message: 'If the address belongs to an account, an e-mail with a sign-in link is on its way.',
};

/** Sign-in by e-mailed link: codes e-mailed through notification-service (SignInMailer), redeemed once for a session token. */
@Injectable()
export class SignInService implements OnModuleDestroy {
  private readonly limits: KeyedRateLimit;

  constructor(
    private readonly config: ContactDirectoryConfig,
    private readonly repository: SignInRepository,
    private readonly directory: DirectoryRepository,
    private readonly tokens: TokenRevocation,
    private readonly verifier: CredentialVerifier,
    private readonly relay: OutboxRelay,
  ) {
    this.limits = new KeyedRateLimit(rateLimitOptions(config, 'contact-directory'), 'sign-in-links');
  }

  onModuleDestroy(): void {
    this.limits.close();
  }

  /**
   * Accepts the request without doing anything that depends on the address, so the answer and its
   * time are the same whether it has accounts or not. The request is written to the outbox
   * (`sign-in.requested`) before the answer, so it survives this process; SignInMailer makes the
   * codes and has the e-mail sent after it. Limited per client address only: a limit per e-mail
   * address would let anyone lock its owner out, so the address's e-mails are paced instead.
   */
  async requestLinks(dto: SignInLinksDto, clientAddress: string): Promise<SignInLinksAcceptedView> {
    await this.limits.take(`client:${clientAddress}`, this.config.SIGN_IN_LINKS_PER_CLIENT_PER_HOUR, HOUR_MS, 'Too many sign-in links asked for from this address this hour');
    const request: SignInRequestedEvent = { eventId: randomUUID(), occurredAt: new Date().toISOString(), audience: dto.audience, emailAddress: dto.email };
    const message = outboxMessage(EventSubject.SignInRequested, request);
    await this.repository.recordRequest(message);
    this.relay.publishCommitted([message]);
    return SIGN_IN_LINKS_ACCEPTED;
  }

  /** Redeems the code (once) and issues a session token for its account, in one transaction. */
  async createSession(code: string): Promise<SignInSessionView> {
    const codeHash = signInCodeHash(code);
    const session = codeHash === undefined ? undefined : await this.repository.transaction(async (manager) => {
      const subject = await this.repository.redeem(manager, codeHash);
      if (!subject) return undefined;
      if (subject.kind === 'user') {
        const token = issuePortalUserToken();
        const issued = await this.directory.insertOwnedToken('user', subject.subjectId, token, this.config.PORTAL_SESSION_TTL_SECONDS, manager);
        const user = await this.repository.user(manager, subject.subjectId);
        if (!issued?.expiresAt || !user) return undefined;
        return { token: token.token, kind: 'portal-user', expiresAt: issued.expiresAt.toISOString(), user } satisfies SignInSessionView;
      }
      const token = issueWorkerToken();
      const issued = await this.directory.insertOwnedToken('worker', subject.subjectId, token, this.config.WORKER_SESSION_TTL_SECONDS, manager);
      const worker = await this.repository.worker(manager, subject.subjectId);
      if (!issued?.expiresAt || !worker) return undefined;
      return { token: token.token, kind: 'worker', expiresAt: issued.expiresAt.toISOString(), worker } satisfies SignInSessionView;
    });
    if (!session) throw new ProblemException(400, 'sign-in-code-invalid', 'The sign-in link is unknown, already used or expired; ask for a new one.');
    return session;
  }

  /** Revokes the presented portal-user or worker token, as an operator's revocation does (broadcast included). */
  async signOut(token: string | undefined): Promise<void> {
    if (!token) throw ProblemException.unauthorized('Send the token to sign out as "Authorization: Bearer <token>".');
    const verdict = token.length > MAX_TOKEN_LENGTH ? undefined : await this.verifier.verify(token);
    const kind = verdict?.kind === 'user' || verdict?.kind === 'worker' ? verdict.kind : undefined;
    if (!kind || !(await this.tokens.revoke(kind, { tokenHash: hashToken(token) }))) {
      throw ProblemException.unauthorized('The token is not a live portal-user or worker token.');
    }
  }
}
