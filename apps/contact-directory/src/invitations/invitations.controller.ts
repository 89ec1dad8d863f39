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
  @ApiOperation({ summary: 'Invite 1 to 100 people to join as workers; an address already invited (pending) keeps its invitation' })
  @ApiResponse({ status: 201, type: InvitationsCreatedView })
  @ApiResponse({ status: 400, description: 'Field errors' })
  invite(@CurrentPortalUser() user: PortalPrincipal, @Body() dto: CreateInvitationsDto): Promise<InvitationsCreatedView> {
    return this.invitations.invite(user, dto);
  }
}
