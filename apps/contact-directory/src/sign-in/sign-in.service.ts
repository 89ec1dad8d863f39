import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { CredentialVerifier, hashToken } from '@availability/auth';
import {
  NotificationPattern,
  type SendSignInLinksReply,
  type SendSignInLinksRequest,
  type SignInLinksAcceptedView,
  type SignInLinksDto,
  type SignInSessionView,
} from '@availability/contracts';
import { RequestReply } from '@availability/messaging';
import { KeyedRateLimit, ProblemException, rateLimitOptions } from '@availability/service-core';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { issuePortalUserToken, issueWorkerToken } from '../credentials/credential-tokens.js';
import { TokenRevocation } from '../credentials/token-revocation.js';
import { DirectoryRepository } from '../directory/directory.repository.js';
import { accountLabel, issueSignInCode, linkMinutes, signInCodeHash } from './sign-in-codes.js';
import { type NewSignInCode, SignInRepository } from './sign-in.repository.js';

const HOUR_MS = 3_600_000;
/** As the guards: a longer credential is never valid. */
const MAX_TOKEN_LENGTH = 512;

export const SIGN_IN_LINKS_ACCEPTED: SignInLinksAcceptedView = {
  message: 'If the address belongs to an account, an e-mail with a sign-in link is on its way.',
};

/** Sign-in by e-mailed link: codes e-mailed through notification-service, redeemed once for a session token. */
@Injectable()
export class SignInService implements OnModuleDestroy {
  private readonly logger = new Logger('SignIn');
  private readonly limits: KeyedRateLimit;

  constructor(
    private readonly config: ContactDirectoryConfig,
    private readonly repository: SignInRepository,
    private readonly directory: DirectoryRepository,
    private readonly tokens: TokenRevocation,
    private readonly verifier: CredentialVerifier,
    private readonly rpc: RequestReply,
  ) {
    this.limits = new KeyedRateLimit(rateLimitOptions(config), 'sign-in-links');
  }

  onModuleDestroy(): void {
    this.limits.close();
  }

  /**
   * One e-mail to the address with a link per account, or nothing when it has none; the caller gets
   * the same answer either way. Limited per address (whoever asks) and per client address.
   */
  async requestLinks(dto: SignInLinksDto, clientAddress: string): Promise<SignInLinksAcceptedView> {
    await this.limits.take(`client:${clientAddress}`, this.config.SIGN_IN_LINKS_PER_CLIENT_PER_HOUR, HOUR_MS, 'Too many sign-in links asked for from this address this hour');
    await this.limits.take(`email:${dto.email.toLowerCase()}`, this.config.SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR, HOUR_MS, 'Too many sign-in links asked for this e-mail address this hour');
    const accounts = await this.repository.accounts(dto.audience, dto.email);
    if (accounts.length === 0) return SIGN_IN_LINKS_ACCEPTED;
    const links = accounts.map((account) => ({ account, ...issueSignInCode() }));
    const codes: NewSignInCode[] = links.map(({ account, codeHash }) => ({ kind: account.kind, subjectId: account.id, codeHash }));
    await this.repository.insertCodes(codes, this.config.SIGN_IN_CODE_TTL_SECONDS);
    const request: SendSignInLinksRequest = {
      to: dto.email,
      audience: dto.audience,
      links: links.map(({ account, code }) => ({ label: accountLabel(account), code })),
      expiresInMinutes: linkMinutes(this.config.SIGN_IN_CODE_TTL_SECONDS),
    };
    try {
      await this.rpc.request<SendSignInLinksRequest, SendSignInLinksReply>(NotificationPattern.SendSignInLinks, request, this.config.SIGN_IN_MAIL_TIMEOUT_MS);
    } catch (error) {
      this.logger.warn(`notification-service did not take a sign-in e-mail: ${(error as Error).message}`);
      await this.repository.deleteCodes(codes.map((code) => code.codeHash)).catch(() => undefined);
      throw new ProblemException(503, 'mail-unavailable', 'The sign-in e-mail could not be sent just now; retry shortly.', undefined, { 'Retry-After': '5' });
    }
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
