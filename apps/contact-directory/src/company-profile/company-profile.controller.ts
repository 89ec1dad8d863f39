import { Body, Controller, Delete, Get, HttpCode, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CompanyProfileView } from '@availability/contracts';
import { assertOrganisationAdmin, CurrentPortalUser, type PortalPrincipal, PortalUserGuard } from '../portal/portal-auth.guard.js';
import { ENABLED_BODY_SCHEMA } from '../portal/enabled-body.js';
import { CompanyProfileService } from './company-profile.service.js';
import { MAX_BASE_URL_LENGTH, MAX_SECRET_LENGTH, MIN_SECRET_LENGTH } from './webhook-endpoint.js';

/** The signed-in user's organisation's company profile: webhook base URL, secret, contact suggestions. */
@ApiTags('portal: company profile')
@ApiBearerAuth('portal')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked portal token' })
@Controller('portal/company-profile')
@UseGuards(PortalUserGuard)
export class CompanyProfileController {
  constructor(private readonly profiles: CompanyProfileService) {}

  @Get()
  @ApiOperation({ summary: 'Base URL, whether a secret is set, when saved, rotation state, signature schemes (never the secret)' })
  @ApiOkResponse({ description: 'The company profile', type: CompanyProfileView })
  get(@CurrentPortalUser() user: PortalPrincipal): Promise<CompanyProfileView> {
    return this.profiles.profile(user);
  }

  @Put('webhook')
  @ApiOperation({
    summary: 'Save the webhook base URL and secret, after GET {base}/test and a signed GET {base}/test/auth both answer 200',
    description:
      'Body: {baseUrl, secret, signatureSchemes?}. signatureSchemes chooses how calls are signed: any non-empty list of ' +
      '"hmac" (Timestamp + Authorization), "v1" (Standard Webhooks HMAC) and "v1a" (Standard Webhooks ed25519, verified with ' +
      'the platform\'s published key set). Default ["hmac","v1"]; absent keeps the saved choice. /test/auth always carries hmac too.',
  })
  @ApiBody({
    schema: {
      type: 'object',
      required: ['baseUrl', 'secret'],
      properties: {
        baseUrl: { type: 'string', format: 'uri', maxLength: MAX_BASE_URL_LENGTH, example: 'https://partner.example.com/hooks/v1' },
        secret: { type: 'string', minLength: MIN_SECRET_LENGTH, maxLength: MAX_SECRET_LENGTH, pattern: '^[\\x21-\\x7e]+$', description: 'Visible ASCII, no spaces' },
        signatureSchemes: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: ['hmac', 'v1', 'v1a'] } },
      },
    },
  })
  @ApiOkResponse({ description: 'Saved; the profile (without the secret)', type: CompanyProfileView })
  @ApiResponse({ status: 400, description: 'baseUrl, secret or signatureSchemes malformed' })
  @ApiResponse({ status: 403, description: 'Not an admin of the organisation' })
  @ApiResponse({
    status: 422,
    description:
      'A check failed; nothing was saved. detail names /test or /test/auth and why; in production also when /test/auth accepted ' +
      'a call signed with a wrong secret or a stale timestamp (elsewhere that is saved with verificationWarning)',
  })
  saveWebhook(@CurrentPortalUser() user: PortalPrincipal, @Body() body: unknown): Promise<CompanyProfileView> {
    assertOrganisationAdmin(user);
    return this.profiles.saveWebhook(user, body);
  }

  @Delete('webhook')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove the webhook set-up (no more calls to the organisation; suggestions off)' })
  @ApiNoContentResponse({ description: 'Removed; no body' })
  @ApiResponse({ status: 403, description: 'Not an admin of the organisation' })
  @ApiResponse({ status: 404, description: 'Nothing was set up' })
  async deleteWebhook(@CurrentPortalUser() user: PortalPrincipal): Promise<void> {
    assertOrganisationAdmin(user);
    await this.profiles.deleteWebhook(user);
  }

  @Put('suggestions')
  @ApiOperation({ summary: 'Offer (or stop offering) contact suggestions: {enabled: boolean}; needs a saved base URL' })
  @ApiBody({ schema: ENABLED_BODY_SCHEMA })
  @ApiOkResponse({ description: 'Saved; the profile', type: CompanyProfileView })
  @ApiResponse({ status: 403, description: 'Not an admin of the organisation' })
  @ApiResponse({ status: 409, description: 'No webhook base URL saved' })
  setSuggestions(@CurrentPortalUser() user: PortalPrincipal, @Body() body: unknown): Promise<CompanyProfileView> {
    assertOrganisationAdmin(user);
    return this.profiles.setSuggestions(user, body);
  }
}
