import { Injectable } from '@nestjs/common';
import { NotificationPattern, type SendSignInLinksReply, type SendSignInLinksRequest, type SignInRequestedEvent } from '@availability/contracts';
import { RequestReply } from '@availability/messaging';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { accountLabel, issueSignInCode, linkMinutes, mailPaceKey } from './sign-in-codes.js';
import { SignInMailPace } from './sign-in-mail-pace.js';
import { type NewSignInCode, SignInRepository } from './sign-in.repository.js';

/**
 * The work of a sign-in request, done after its answer (`sign-in.requested`, from the outbox): for an
 * address with accounts, a code per account and one e-mail with their links, at the address's pace
 * (SignInMailPace); for any other address, nothing.
 */
@Injectable()
export class SignInMailer {
  private readonly pace: SignInMailPace;

  constructor(
    private readonly config: ContactDirectoryConfig,
    private readonly repository: SignInRepository,
    private readonly rpc: RequestReply,
  ) {
    this.pace = new SignInMailPace({ promptPerHour: config.SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR, slowIntervalMs: config.SIGN_IN_LINKS_SLOW_INTERVAL_SECONDS * 1000 });
  }

  /**
   * One transaction: the address's pace locked (requests for one address are decided one at a time),
   * the e-mail's place in the pace and its codes stored. Then, once they are committed,
   * notification-service is handed the e-mail: so no e-mail ever carries a code that was not stored
   * (one that notification-service took after the hand-off timed out, its transaction rolled back,
   * did). If it does not take the e-mail, the request comes back later (the consumer's back-off) and
   * makes new codes; the codes of the failed hand-off expire unused, and it still counts in the pace.
   */
  async send(request: SignInRequestedEvent): Promise<void> {
    const accounts = await this.repository.accounts(request.audience, request.emailAddress);
    if (accounts.length === 0) return;
    const key = mailPaceKey(request.emailAddress);
    const mail = await this.repository.transaction(async (manager): Promise<SendSignInLinksRequest | undefined> => {
      const { pace, now } = await this.repository.lockMailPace(manager, key);
      const decision = this.pace.decide(pace, now);
      if (!decision.send) return undefined;
      await this.repository.saveMailPace(manager, key, decision.pace);
      const links = accounts.map((account) => ({ account, ...issueSignInCode() }));
      const codes: NewSignInCode[] = links.map(({ account, codeHash }) => ({ kind: account.kind, subjectId: account.id, codeHash }));
      // A link sent later works as long from when it is sent.
      await this.repository.insertCodes(manager, codes, this.config.SIGN_IN_CODE_TTL_SECONDS + Math.ceil(decision.delayMs / 1000));
      return {
        to: request.emailAddress,
        audience: request.audience,
        links: links.map(({ account, code }) => ({ label: accountLabel(account), code })),
        expiresInMinutes: linkMinutes(this.config.SIGN_IN_CODE_TTL_SECONDS),
        ...(decision.delayMs > 0 ? { delayMs: decision.delayMs } : {}),
      };
    });
    if (mail) await this.rpc.request<SendSignInLinksRequest, SendSignInLinksReply>(NotificationPattern.SendSignInLinks, mail, this.config.SIGN_IN_MAIL_TIMEOUT_MS);
  }
}
