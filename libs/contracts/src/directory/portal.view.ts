import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '@availability/webhook-signing';

/** What became of one provider asked in a contact-suggestion search. */
export const SUGGESTION_PROVIDER_STATUSES = ['ok', 'timeout', 'error', 'invalid'] as const;
export type SuggestionProviderStatus = (typeof SUGGESTION_PROVIDER_STATUSES)[number];

export class SecretRotationView {
  @ApiProperty({ description: 'Whether the secret replaced by the last save still verifies, during its grace period' })
  previousSecretActive: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the previous secret stops being used; null when none is active', example: null })
  previousSecretExpiresAt: string | null;
}

/** The company profile's webhook set-up, as `GET /portal/company-profile` and every change of it return it. The secret is never returned. */
export class CompanyProfileView {
  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ type: String, format: 'uri', nullable: true, description: 'Null until a base URL is saved', example: 'https://partner.example.com/hooks/v1' })
  baseUrl: string | null;

  @ApiProperty({ description: 'Whether a signing secret is saved (the secret itself is never shown)', example: true })
  secretSet: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the set-up was last saved; null when never', example: '2026-11-24T22:25:18.758Z' })
  savedAt: string | null;

  @ApiProperty({ description: 'Whether the organisation answers contact-suggestion searches', example: true })
  suggestionsEnabled: boolean;

  @ApiProperty({
    description: 'Whether the organisation may offer contact suggestions at all (integrators, and organisations a platform operator approved); when false, enabling them is refused',
    example: true,
  })
  suggestionsAllowed: boolean;

  @ApiProperty({ type: SecretRotationView })
  rotation: SecretRotationView;

  @ApiProperty({
    enum: [...SIGNATURE_SCHEMES],
    isArray: true,
    description: 'How calls to the organisation are signed (GET {base}/test/auth always carries hmac as well)',
    example: ['hmac', 'v1'],
  })
  signatureSchemes: SignatureScheme[];

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Set when the last set-up check found that GET {base}/test/auth also accepted a call signed with the wrong secret or a stale timestamp ' +
      '(saved outside production only; production refuses it): what to fix. Null once a check passes',
    example: null,
  })
  verificationWarning: string | null;
}

/** An organisation that offers contact suggestions, and whether the user's organisation searches it by default. */
export class SuggestionProviderChoiceView {
  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ example: 'Northside Staffing' })
  name: string;

  @ApiProperty({ description: 'Searches that name no provider go to this one', example: true })
  enabled: boolean;
}

export class SuggestionProvidersView {
  @ApiProperty({ type: [SuggestionProviderChoiceView] })
  providers: SuggestionProviderChoiceView[];
}

/** Spec 2.8. */
export class SuggestionRatingView {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 5, example: 5 })
  rating: number;

  @ApiProperty({ description: 'Who gave the rating', example: 'Warehouse North' })
  ratingProvider: string;

  @ApiProperty({ description: 'A date (YYYY-MM-DD) or an ISO 8601 date-time, as the integrator sent it', example: '2026-10-01T00:00:00Z' })
  lastWorked: string;
}

/** Spec 2.7: a contact an integrator suggests. */
export class ContactSuggestionView {
  @ApiProperty({ example: 'Ada Lovelace' })
  name: string;

  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  emailAddress: string;

  @ApiPropertyOptional({ format: 'uri', description: 'http or https; absent when there is none', example: 'https://integrator.example/images/ada.png' })
  profileImageUrl?: string;

  @ApiProperty({ type: [SuggestionRatingView] })
  ratings: SuggestionRatingView[];
}

/**
 * A suggestion as a search returns it: de-duplicated by e-mail address across providers, ratings
 * merged. The provider's image URL is not passed on: pages show the platform's copy
 * (profileImagePath), so no provider sees a hirer's browser.
 */
export class SuggestedContactView {
  @ApiProperty({ example: 'Ada Lovelace' })
  name: string;

  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  emailAddress: string;

  @ApiPropertyOptional({
    description:
      'The platform’s copy of the provider’s profile image: a path of this API (GET, the same credential; an opaque reference valid for an hour, for this organisation only). Absent when the provider gave no image',
    example: '/portal/contact-suggestions/image?ref=v1.Q2xhcmE.dGFn.Y2lwaGVy',
  })
  profileImagePath?: string;

  @ApiProperty({ type: [SuggestionRatingView] })
  ratings: SuggestionRatingView[];

  @ApiProperty({ format: 'uuid', description: 'The first provider (in the order asked) that suggested this address', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ type: [String], format: 'uuid', description: 'Every provider that suggested it', example: ['8333fa9f-0801-4965-8862-bab6bda8a17c'] })
  organisationIds: string[];
}

/** How one provider answered a search; a slow, failing or malformed provider never fails the search. */
export class SuggestionProviderOutcomeView {
  @ApiProperty({ format: 'uuid', example: '8333fa9f-0801-4965-8862-bab6bda8a17c' })
  organisationId: string;

  @ApiProperty({ type: String, nullable: true, description: 'Null for an organisation that does not offer suggestions', example: 'Northside Staffing' })
  name: string | null;

  @ApiProperty({ enum: [...SUGGESTION_PROVIDER_STATUSES], description: 'ok: answered in time; timeout; error: not called or a failed call; invalid: the reply was not spec 2.7', example: 'ok' })
  status: SuggestionProviderStatus;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Valid suggestions it returned (before de-duplication across providers)', example: 3 })
  returned: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Elements of its reply that were invalid or over the per-provider limit', example: 0 })
  dropped: number;

  @ApiProperty({ type: 'integer', minimum: 0, example: 2 })
  durationMs: number;

  @ApiPropertyOptional({ description: 'Why it gave nothing; absent when status is ok', example: 'no answer within 2000 ms' })
  error?: string;
}

/** The answer to `POST /portal/contact-suggestions/search`. */
export class SuggestionsSearchView {
  @ApiProperty({ type: [SuggestedContactView] })
  suggestions: SuggestedContactView[];

  @ApiProperty({ type: [SuggestionProviderOutcomeView], description: 'One per provider asked, in the order asked' })
  providers: SuggestionProviderOutcomeView[];
}
