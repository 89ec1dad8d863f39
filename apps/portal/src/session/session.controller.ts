import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DirectorySignIn } from './directory-sign-in.js';
import { SessionCookie } from './session-cookie.js';
import { SignedInPersonView, SignInLinkAccepted, SignInLinkRequest, SignInWithCode } from './session.dto.js';

@ApiTags('session')
@Controller('session')
export class SessionController {
  constructor(
    private readonly directory: DirectorySignIn,
    private readonly cookie: SessionCookie,
  ) {}

  @Post('links')
  @HttpCode(202)
  @ApiOperation({ summary: 'E-mail a sign-in link', description: 'The same answer whether or not the address has an account.' })
  @ApiAcceptedResponse({ type: SignInLinkAccepted })
  async requestLink(@Body() body: SignInLinkRequest, @Req() request: FastifyRequest): Promise<SignInLinkAccepted> {
    await this.directory.requestLinks({ email: body.email, audience: body.audience }, request.ip);
    return { message: 'If the address belongs to an account, a sign-in link is on its way.' };
  }

  @Post()
  @ApiOperation({ summary: 'Sign in with the code from an e-mailed link', description: 'Sets the session cookie.' })
  @ApiCreatedResponse({ type: SignedInPersonView })
  async signIn(@Body() body: SignInWithCode, @Res({ passthrough: true }) reply: FastifyReply): Promise<SignedInPersonView> {
    const session = await this.directory.redeem(body.code);
    this.cookie.set(reply, session);
    return session.person;
  }

  @Get()
  @ApiOperation({ summary: 'Who is signed in' })
  @ApiOkResponse({ type: SignedInPersonView })
  whoIsSignedIn(@Req() request: FastifyRequest): SignedInPersonView {
    return this.cookie.require(request).person;
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign out', description: 'Revokes the session’s token and clears the cookie.' })
  @ApiNoContentResponse()
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const session = this.cookie.read(request);
    if (session) await this.directory.revoke(session.token);
    this.cookie.clear(reply);
  }
}
