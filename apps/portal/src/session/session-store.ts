import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { Redis } from 'ioredis';
import { connectRedis, type HealthContributor, ProblemException, redisTarget } from '@availability/service-core';
import { PortalConfig } from '../config/portal.config.js';
import { lifetimeLeft, newSessionId, openSession, type PortalSession, sealSession, sessionKey } from './portal-session.js';

/** Now, for the sessions' expiry; tests give their own. */
export const PORTAL_CLOCK = Symbol('PORTAL_CLOCK');
export type Clock = () => Date;

/** How long a session's lookup waits for Redis before its request is a 503: connecting and each command alike. */
const STORE_TIMEOUT_MS = 2_000;

/**
 * The portal's sessions, in the platform's Redis under `<QUEUE_PREFIX>:portal-session:`: every
 * instance sees the same ones, and a session deleted at sign-out is gone for all of them at once.
 * Each record expires with its session (the token's own expiry, as the directory gave it). Keys and
 * records are derived from the session id (portal-session.ts), so Redis's contents are neither
 * cookies nor tokens. Nothing here is logged but an error's message.
 */
@Injectable()
export class SessionStore implements OnModuleDestroy {
  private readonly logger = new Logger('SessionStore');
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(
    config: PortalConfig,
    @Inject(PORTAL_CLOCK) private readonly now: Clock,
  ) {
    // Commands wait for a connection no longer than the timeout; its errors surface as each command's.
    this.redis = connectRedis(redisTarget(config), { connectTimeout: STORE_TIMEOUT_MS, commandTimeout: STORE_TIMEOUT_MS, maxRetriesPerRequest: 1 });
    this.redis.on('error', () => undefined);
    this.prefix = `${config.QUEUE_PREFIX}:portal-session:`;
  }

  /** Keeps a new session for as long as it lasts; its id, for the cookie. */
  async create(session: PortalSession): Promise<string> {
    const ttl = lifetimeLeft(session, this.now());
    if (ttl === 0) throw sessionsUnavailable();
    const id = newSessionId();
    await this.attempt(() => this.redis.set(this.key(id), sealSession(id, session), 'PX', ttl, 'NX'));
    return id;
  }

  async find(id: string): Promise<PortalSession | undefined> {
    const record = await this.attempt(() => this.redis.get(this.key(id)));
    return record === null ? undefined : openSession(id, record, this.now());
  }

  /** Ends a session: gone for every copy of its cookie. The session it was, if it was one. */
  async remove(id: string): Promise<PortalSession | undefined> {
    const record = await this.attempt(() => this.redis.getdel(this.key(id)));
    return record === null ? undefined : openSession(id, record, this.now());
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }

  private key(id: string): string {
    return `${this.prefix}${sessionKey(id)}`;
  }

  private async attempt<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      this.logger.warn(`the session store did not answer: ${(error as Error).message}`);
      throw sessionsUnavailable();
    }
  }
}

/** Readiness: no one can be signed in, or shown as signed in, without the store. */
@Injectable()
export class SessionStoreHealth implements HealthContributor {
  constructor(private readonly store: SessionStore) {}

  async check(indicators: HealthIndicatorService): Promise<HealthIndicatorResult> {
    const session = indicators.check('redis');
    try {
      await this.store.ping();
      return session.up();
    } catch (error) {
      return session.down({ message: (error as Error).message });
    }
  }
}

function sessionsUnavailable(): ProblemException {
  return new ProblemException(503, 'sessions-unavailable', 'Signing in is unavailable for a moment; try again shortly.', undefined, { 'Retry-After': '1' });
}
