import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '@availability/service-core';
import { PortalConfig } from '../config/portal.config.js';
import { decodeSession, encodeSession, type PortalSession } from './portal-session.js';

export const SESSION_COOKIE = 'portal_session';

/** Now, for the session's expiry; tests give their own. */
export const PORTAL_CLOCK = Symbol('PORTAL_CLOCK');
export type Clock = () => Date;

/**
 * The session cookie: HttpOnly (no script reads the token), SameSite=Strict (no other site's page
 * sends it), Secure in production, signed (the person shown cannot be edited), and gone when the
 * session expires.
 */
@Injectable()
export class SessionCookie {
  constructor(
    private readonly config: PortalConfig,
    @Inject(PORTAL_CLOCK) private readonly now: Clock,
  ) {}

  read(request: FastifyRequest): PortalSession | undefined {
    const raw = request.cookies[SESSION_COOKIE];
    if (raw === undefined) return undefined;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value !== null ? decodeSession(unsigned.value, this.now()) : undefined;
  }

  require(request: FastifyRequest): PortalSession {
    const session = this.read(request);
    if (!session) throw ProblemException.unauthorized('Sign in to the portal first.');
    return session;
  }

  set(reply: FastifyReply, session: PortalSession): void {
    const expires = new Date(session.person.expiresAt);
    reply.setCookie(SESSION_COOKIE, encodeSession(session), { ...this.attributes(), signed: true, expires });
  }

  clear(reply: FastifyReply): void {
    reply.clearCookie(SESSION_COOKIE, this.attributes());
  }

  private attributes() {
    return { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: this.config.PORTAL_COOKIE_SECURE };
  }
}
