import { Body, Controller, Delete, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { presentedToken } from '@availability/auth';
import { SignInLinksAcceptedView, SignInLinksDto, SignInSessionDto, SignInSessionView } from '@availability/contracts';
import { clientAddressKey } from '@availability/service-core';
import { SignInService } from './sign-in.service.js';

const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before asking again', schema: { type: 'integer' as const } } };

/** Sign-in by e-mailed link for the portal's users and workers: no credential needed to ask or to redeem. */
@ApiTags('sign-in')
@Controller('sign-in')
export class SignInController {
  constructor(private readonly signIn: SignInService) {}

  @Post('links')
  @HttpCode(202)
  @ApiOperation({
    summary:
      'E-mail the address a sign-in link per account (portal: one per organisation where it is a user; worker: its worker accounts). ' +
      'The same 202, as quick, whatever the address, so nobody learns who has an account: the e-mail is made and sent after the answer. ' +
      'Each link works once, for 15 minutes. An address asked for often gets its e-mails more slowly, never none',
  })
  @ApiResponse({ status: 202, type: SignInLinksAcceptedView, description: 'The same whether or not the address has an account; the request is kept until its e-mail, if any, is sent' })
  @ApiResponse({ status: 400, description: 'Field errors' })
  @ApiResponse({ status: 429, description: 'Too many links asked for from this client address this hour (whatever the e-mail addresses)', headers: RETRY_AFTER })
  requestLinks(@Body() dto: SignInLinksDto, @Req() request: FastifyRequest): Promise<SignInLinksAcceptedView> {
    // The client as the rate limits count it: a listed proxy's X-Forwarded-For believed, IPv6 by its /64.
    return this.signIn.requestLinks(dto, clientAddressKey(request));
  }

  @Post('sessions')
  @HttpCode(201)
  @ApiOperation({ summary: 'Redeem a sign-in link’s code (once) for a portal-user token (12 hours) or a worker token (30 days)' })
  @ApiResponse({ status: 201, type: SignInSessionView, description: 'Signed in; the code is used up' })
  @ApiResponse({ status: 400, description: 'Field errors, or sign-in-code-invalid: the code is unknown, already used or expired' })
  createSession(@Body() dto: SignInSessionDto): Promise<SignInSessionView> {
    return this.signIn.createSession(dto.code);
  }

  @Delete('session')
  @HttpCode(204)
  @ApiBearerAuth('portal')
  @ApiSecurity('bearer')
  @ApiOperation({ summary: 'Sign out: revoke the presented portal-user or worker token; services caching it are told at once' })
  @ApiResponse({ status: 204, description: 'Revoked' })
  @ApiResponse({ status: 401, description: 'Missing, invalid, expired or revoked token' })
  async signOut(@Req() request: FastifyRequest): Promise<void> {
    await this.signIn.signOut(presentedToken(request));
  }
}
