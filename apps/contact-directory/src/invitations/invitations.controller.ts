import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPortalUser, type PortalPrincipal, PortalUserGuard } from '../portal/portal-auth.guard.js';
import { CreateInvitationsDto, InvitationsCreatedView } from './invitations.dto.js';
import { InvitationsService } from './invitations.service.js';

@ApiTags('portal: invitations')
@ApiBearerAuth('portal')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked portal token' })
@Controller('portal/invitations')
@UseGuards(PortalUserGuard)
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Invite 1 to 100 people to join as workers (admins only); an address already invited (pending) keeps its invitation',
    description:
      'Each new invitation is e-mailed. An organisation sends at most INVITATIONS_PER_ORGANISATION_PER_DAY a day (UTC); re-inviting a pending address sends nothing and does not count.',
  })
  @ApiResponse({ status: 201, type: InvitationsCreatedView })
  @ApiResponse({ status: 400, description: 'Field errors (a name that is not a plain person\'s name among them)' })
  @ApiResponse({ status: 403, description: 'forbidden: the portal user is not an admin of the organisation' })
  @ApiResponse({
    status: 429,
    description:
      "invitation-limit-reached: the new invitations would pass the organisation's allowance for the day (nothing was stored); or rate-limited: more requests this minute than the credential's RATE_LIMIT_PER_MINUTE",
    headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds until the next UTC day (invitation-limit-reached) or until the minute ends (rate-limited)' } },
  })
  invite(@CurrentPortalUser() user: PortalPrincipal, @Body() dto: CreateInvitationsDto): Promise<InvitationsCreatedView> {
    return this.invitations.invite(user, dto);
  }
}
