import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DirectorySignIn } from './directory-sign-in.js';
import { PortalSignIn } from './portal-sign-in.js';
import { SessionCookie } from './session-cookie.js';
import { SignedInPersonView, SignInLinkAccepted, SignInLinkRequest, SignInWithCode } from './session.dto.js';

@ApiTags('session')
@Controller('session')
export class SessionController {
  constructor(
    private readonly directory: DirectorySignIn,
    private readonly sessions: PortalSignIn,
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
  @ApiOperation({ summary: 'Sign in with the code from an e-mailed link', description: 'Sets the session cookie, and ends the session the browser had before.' })
  @ApiCreatedResponse({ type: SignedInPersonView })
  async signIn(@Body() body: SignInWithCode, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SignedInPersonView> {
    const { id, person } = await this.sessions.signIn(body.code, this.cookie.idOf(request));
    this.cookie.set(reply, id, person.expiresAt);
    return person;
  }

  @Get()
  @ApiOperation({ summary: 'Who is signed in' })
  @ApiOkResponse({ type: SignedInPersonView })
  async whoIsSignedIn(@Req() request: FastifyRequest): Promise<SignedInPersonView> {
    return (await this.cookie.require(request)).person;
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign out', description: 'Ends the session, for every copy of its cookie, revokes its token and clears the cookie.' })
  @ApiNoContentResponse()
  async signOut(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.sessions.signOut(this.cookie.idOf(request));
    this.cookie.clear(reply);
  }
}
