import { Injectable, Logger } from '@nestjs/common';
import type { CompanyProfileView } from '@availability/contracts';
import { type FieldErrors, ProblemException } from '@availability/service-core';
import { ContactDirectoryConfig } from '../config/contact-directory.config.js';
import { enabledOf } from '../portal/enabled-body.js';
import type { PortalPrincipal } from '../portal/portal-auth.guard.js';
import { PortalRepository, type StoredProfile } from '../portal/portal.repository.js';
import { SecretBox } from './secret-box.js';
import { DEFAULT_SIGNATURE_SCHEMES, parseSignatureSchemes, type SignatureScheme } from '@availability/webhook-signing';
import { parseBaseUrl, secretProblem, signatureSchemesProblem, WebhookEndpointChecker } from './webhook-endpoint.js';
import { VerificationPolicy } from './verification-verdict.js';
import { WebhookTargetChanges } from './webhook-target-changes.js';

function view(organisationId: string, stored: StoredProfile | undefined, suggestionsAllowed: boolean, now = new Date()): CompanyProfileView {
  const previousActive = !!stored?.previousSecretSealed && !!stored.previousSecretUntil && stored.previousSecretUntil > now;
  return {
    organisationId,
    baseUrl: stored?.baseUrl ?? null,
    secretSet: !!stored,
    savedAt: stored ? stored.savedAt.toISOString() : null,
    suggestionsEnabled: stored?.suggestionsEnabled ?? false,
    suggestionsAllowed,
    rotation: {
      previousSecretActive: previousActive,
      previousSecretExpiresAt: previousActive ? (stored?.previousSecretUntil as Date).toISOString() : null,
    },
    signatureSchemes: stored?.signatureSchemes ?? [...DEFAULT_SIGNATURE_SCHEMES],
    verificationWarning: stored?.verificationWarning ?? null,
  };
}

/**
 * The company profile's webhook set-up (spec 4.2, 5, 7.1): the base URL and secret are saved only
 * after `GET /test` and `GET /test/auth` (signed with the new secret) both answered 200, and a
 * `/test/auth` signed with a wrong secret and one with a stale timestamp were not accepted (spec 5.3;
 * outside production a set-up that accepts them is saved with a warning). The secret is stored
 * AES-256-GCM encrypted and never returned or logged.
 */
@Injectable()
export class CompanyProfileService {
  private readonly logger = new Logger('CompanyProfile');
  private readonly policy: VerificationPolicy;

  constructor(
    private readonly repository: PortalRepository,
    private readonly box: SecretBox,
    private readonly checker: WebhookEndpointChecker,
    private readonly config: ContactDirectoryConfig,
    private readonly changes: WebhookTargetChanges,
  ) {
    this.policy = new VerificationPolicy(config.NODE_ENV === 'production');
  }

  async profile(user: PortalPrincipal): Promise<CompanyProfileView> {
    const [stored, allowed] = await Promise.all([this.repository.profile(user.organisationId), this.repository.mayProvideSuggestions(user.organisationId)]);
    return view(user.organisationId, stored, allowed);
  }

  async saveWebhook(user: PortalPrincipal, body: unknown): Promise<CompanyProfileView> {
    const { baseUrl, secret, signatureSchemes } = this.parse(body);
    // Without signatureSchemes the saved choice stays; /test/auth is signed as the calls will be.
    const schemes = signatureSchemes ?? (await this.repository.profile(user.organisationId))?.signatureSchemes ?? [...DEFAULT_SIGNATURE_SCHEMES];
    const failure = await this.checker.check(baseUrl, secret, schemes);
    if (failure) {
      this.logger.log(`webhook set-up of ${user.organisationId} refused: ${failure.call} ${failure.cause}${failure.status ? ` ${failure.status}` : ''}`);
      throw new ProblemException(
        422,
        'webhook-check-failed',
        `${failure.message}. The base URL and secret were not saved.`,
        { baseUrl: [failure.message] },
      );
    }
    const verdict = this.policy.judge(await this.checker.probe(baseUrl, secret, schemes));
    if (verdict.kind === 'refuse') {
      this.logger.log(`webhook set-up of ${user.organisationId} refused: /test/auth accepts forged or stale calls`);
      throw new ProblemException(422, 'webhook-not-verifying', verdict.message, { baseUrl: [verdict.message] });
    }
    const warning = verdict.kind === 'warn' ? verdict.message : null;
    const saved = await this.repository.transaction(async (manager) => {
      const existing = await this.repository.profile(user.organisationId, manager, true);
      const sealed = this.box.seal(secret, user.organisationId);
      let previous: { sealed: string; graceSeconds: number } | { keep: true } | null = null;
      if (existing) {
        const current = this.box.open(existing.secretSealed, user.organisationId);
        if (current === secret) previous = { keep: true };
        else if (current !== undefined) previous = { sealed: existing.secretSealed, graceSeconds: this.config.WEBHOOK_SECRET_GRACE_SECONDS };
      }
      return this.repository.saveWebhook(manager, user.organisationId, user.userId, baseUrl, sealed, previous, signatureSchemes, warning);
    });
    await this.changes.changed(user.organisationId);
    return view(user.organisationId, saved, await this.repository.mayProvideSuggestions(user.organisationId));
  }

  async deleteWebhook(user: PortalPrincipal): Promise<void> {
    if (!(await this.repository.deleteWebhook(user.organisationId))) throw ProblemException.notFound('The webhook set-up');
    await this.changes.changed(user.organisationId);
  }

  async setSuggestions(user: PortalPrincipal, body: unknown): Promise<CompanyProfileView> {
    const enabled = enabledOf(body);
    const allowed = await this.repository.mayProvideSuggestions(user.organisationId);
    if (enabled && !allowed) {
      throw new ProblemException(
        403,
        'suggestion-provider-not-approved',
        'Only integrators and organisations a platform operator has approved may offer contact suggestions: searches send them the searching user\'s e-mail address.',
      );
    }
    const updated = await this.repository.setSuggestionsEnabled(user.organisationId, enabled);
    if (!updated) {
      throw ProblemException.conflict('webhook-not-set-up', 'Save a webhook base URL on the company profile before offering contact suggestions.');
    }
    await this.changes.changed(user.organisationId);
    return view(user.organisationId, updated, allowed);
  }

  private parse(body: unknown): { baseUrl: string; secret: string; signatureSchemes?: SignatureScheme[] } {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw ProblemException.validation({ body: ['must be a JSON object'] }, 'The request body must be a JSON object.');
    }
    const { baseUrl: rawUrl, secret, signatureSchemes } = body as Record<string, unknown>;
    const errors: FieldErrors = {};
    const url = parseBaseUrl(rawUrl);
    if ('error' in url) errors.baseUrl = [url.error];
    const problem = secretProblem(secret);
    if (problem) errors.secret = [problem];
    const schemesProblem = signatureSchemesProblem(signatureSchemes);
    if (schemesProblem) errors.signatureSchemes = [schemesProblem];
    if (Object.keys(errors).length > 0 || 'error' in url) throw ProblemException.validation(errors);
    return { baseUrl: url.baseUrl, secret: secret as string, signatureSchemes: parseSignatureSchemes(signatureSchemes) };
  }
}
