import { Body, Controller, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { SuggestionProviderChoiceView, SuggestionProvidersView, SuggestionsSearchView } from '@availability/contracts';
import { assertOrganisationAdmin, CurrentPortalUser, type PortalPrincipal, PortalUserGuard } from '../portal/portal-auth.guard.js';
import { ENABLED_BODY_SCHEMA } from '../portal/enabled-body.js';
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
}
