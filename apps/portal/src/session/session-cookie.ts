import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '@availability/service-core';
import { PortalConfig } from '../config/portal.config.js';
import { isSessionId, type PortalSession } from './portal-session.js';
import { SessionStore } from './session-store.js';

/**
 * `__Host-`: the browser keeps it only when it is Secure, for Path=/ and without a Domain, so no
 * other host (a sibling subdomain, a page over http) can set or overwrite it. Browsers accept a Secure
 * cookie from http://localhost, so development over plain http uses the same cookie.
 */
export const SESSION_COOKIE = '__Host-portal_session';
/** The name without Secure (PORTAL_COOKIE_SECURE off: development over plain http on another host). */
export const PLAIN_SESSION_COOKIE = 'portal_session';

/** Longest cookie value read: an id and its signature are under 100 characters. */
const MAX_COOKIE_LENGTH = 200;

/**
 * The session cookie: the session's random id, signed (PORTAL_COOKIE_SECRET), and nothing else; the
 * session itself is in the SessionStore. HttpOnly (no script reads it), SameSite=Strict (no other
 * site's page sends it), Secure with the `__Host-` prefix, and gone when the session expires.
 */
@Injectable()
export class SessionCookie {
  private readonly name: string;

  constructor(
    private readonly config: PortalConfig,
    private readonly store: SessionStore,
  ) {
    this.name = config.PORTAL_COOKIE_SECURE ? SESSION_COOKIE : PLAIN_SESSION_COOKIE;
  }

  /** The id the request's cookie carries, if it is one the portal signed. */
  idOf(request: FastifyRequest): string | undefined {
    const raw = request.cookies[this.name];
    if (raw === undefined || raw.length > MAX_COOKIE_LENGTH) return undefined;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value !== null && isSessionId(unsigned.value) ? unsigned.value : undefined;
  }

  /** The live session of the request's cookie: none for a cookie signed out, expired, forged or absent. */
  async read(request: FastifyRequest): Promise<PortalSession | undefined> {
    const id = this.idOf(request);
    return id === undefined ? undefined : this.store.find(id);
  }

  async require(request: FastifyRequest): Promise<PortalSession> {
    const session = await this.read(request);
    if (!session) throw ProblemException.unauthorized('Sign in to the portal first.');
    return session;
  }

  set(reply: FastifyReply, id: string, expiresAt: string): void {
    reply.setCookie(this.name, id, { ...this.attributes(), signed: true, expires: new Date(expiresAt) });
  }

  clear(reply: FastifyReply): void {
    reply.clearCookie(this.name, this.attributes());
  }

  private attributes() {
    return { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: this.config.PORTAL_COOKIE_SECURE };
  }
}
