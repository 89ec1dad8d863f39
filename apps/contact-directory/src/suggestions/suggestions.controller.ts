import { Body, Controller, Get, HttpCode, Param, Post, Put, Query, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { SuggestionProviderChoiceView, SuggestionProvidersView, SuggestionsSearchView } from '@availability/contracts';
import { assertOrganisationAdmin, CurrentPortalUser, type PortalPrincipal, PortalUserGuard } from '../portal/portal-auth.guard.js';
import { ENABLED_BODY_SCHEMA } from '../portal/enabled-body.js';
import { IMAGE_TYPES } from './image-check.js';
import { MAX_FILTER_LENGTH, MAX_SEARCHED_ORGANISATIONS, SuggestionsService } from './suggestions.service.js';

/** The Invites page: which organisations can suggest contacts, and the search across them. */
@ApiTags('portal: contact suggestions')
@ApiBearerAuth('portal')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked portal token' })
@Controller('portal')
@UseGuards(PortalUserGuard)
export class SuggestionsController {
  constructor(private readonly suggestions: SuggestionsService) {}

  @Get('suggestion-providers')
  @ApiOperation({ summary: 'Organisations that offer contact suggestions (id, name), and whether my organisation searches them by default (enabled)' })
  @ApiOkResponse({ description: 'Every provider, by name', type: SuggestionProvidersView })
  providers(@CurrentPortalUser() user: PortalPrincipal): Promise<SuggestionProvidersView> {
    return this.suggestions.providers(user);
  }

  @Put('suggestion-providers/:organisationId')
  @ApiOperation({ summary: 'Search this provider by default, or stop: {enabled: boolean}. Searches that name no provider go only to enabled ones' })
  @ApiBody({ schema: ENABLED_BODY_SCHEMA })
  @ApiOkResponse({ description: 'Saved; the provider and my organisation’s choice', type: SuggestionProviderChoiceView })
  @ApiResponse({ status: 403, description: 'Not an admin of the organisation' })
  @ApiResponse({ status: 404, description: 'No such provider' })
  chooseProvider(
    @CurrentPortalUser() user: PortalPrincipal,
    @Param('organisationId') organisationId: string,
    @Body() body: unknown,
  ): Promise<SuggestionProviderChoiceView> {
    assertOrganisationAdmin(user, 'which providers it searches');
    return this.suggestions.chooseProvider(user, organisationId, body);
  }

  @Post('contact-suggestions/search')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Ask the chosen organisations (the providers my organisation enabled when organisationIds is left out) in parallel, each with a timeout; ' +
      'returns the valid, de-duplicated suggestions that arrived in time and each provider’s outcome',
  })
  @ApiBody({
    required: false,
    schema: {
      type: 'object',
      properties: {
        filter: { type: 'string', maxLength: MAX_FILTER_LENGTH, description: 'Search text, passed to each provider (spec 2.6)' },
        organisationIds: { type: 'array', maxItems: MAX_SEARCHED_ORGANISATIONS, items: { type: 'string', format: 'uuid' }, description: 'Providers to ask; absent: those my organisation enabled' },
      },
    },
  })
  @ApiOkResponse({ description: 'The suggestions that arrived in time, and how each provider answered', type: SuggestionsSearchView })
  @ApiResponse({ status: 400, description: 'filter longer than 200 characters, or organisationIds not uuids' })
  search(@CurrentPortalUser() user: PortalPrincipal, @Body() body: unknown): Promise<SuggestionsSearchView> {
    return this.suggestions.search(user, body);
  }

  @Get('contact-suggestions/image')
  @ApiOperation({
    summary:
      'The platform’s copy of a suggested contact’s profile image (a search answer’s profileImagePath): fetched from the provider once and cached, ' +
      'at most 1 MiB of PNG, JPEG, WebP or GIF, so the provider never sees the hirer’s browser',
  })
  @ApiQuery({ name: 'ref', type: String, required: true, description: 'The opaque reference from profileImagePath (valid for an hour, for the organisation that searched)' })
  @ApiProduces(...IMAGE_TYPES)
  @ApiOkResponse({ description: 'The image, with the type it was checked to be', schema: { type: 'string', format: 'binary' } })
  @ApiResponse({ status: 404, description: 'The reference is not one of my organisation’s searches (forged, expired, another organisation’s)' })
  @ApiResponse({ status: 502, description: 'The provider’s image could not be fetched, is too large, or is not an allowed image type' })
  async image(@CurrentPortalUser() user: PortalPrincipal, @Query('ref') reference: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    const image = await this.suggestions.image(user, reference);
    // What a browser opening the address directly could do with it: nothing but show it.
    reply
      .header('content-type', image.type)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cross-origin-resource-policy', 'same-origin')
      .header('cache-control', 'private, max-age=3600');
    return image.bytes;
  }
}
