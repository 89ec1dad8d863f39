import { Body, Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPortalUser, type PortalPrincipal, PortalUserGuard } from '../portal/portal-auth.guard.js';
import type { SuggestionsResult } from './suggestion-fan-out.js';
import { SuggestionsService } from './suggestions.service.js';

/** The Invites page: which organisations can suggest contacts, and the search across them. */
@ApiTags('portal: contact suggestions')
@ApiBearerAuth('portal')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked portal token' })
@Controller('portal')
@UseGuards(PortalUserGuard)
export class SuggestionsController {
  constructor(private readonly suggestions: SuggestionsService) {}

  @Get('suggestion-providers')
  @ApiOperation({ summary: 'Organisations that offer contact suggestions (id, name)' })
  providers() {
    return this.suggestions.providers();
  }

  @Post('contact-suggestions/search')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Ask the chosen organisations (all providers when organisationIds is left out) in parallel, each with a timeout; ' +
      'returns the valid, de-duplicated suggestions that arrived in time and each provider’s outcome',
  })
  @ApiResponse({ status: 200, description: '{suggestions, providers: [{organisationId, name, status, returned, dropped, error?}]}' })
  @ApiResponse({ status: 400, description: 'filter longer than 200 characters, or organisationIds not uuids' })
  search(@CurrentPortalUser() user: PortalPrincipal, @Body() body: unknown): Promise<SuggestionsResult> {
    return this.suggestions.search(user, body);
  }
}
