import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { caFileOf, ConfigValidationError, developmentOnly, fromSetting, InProduction, IntegratorCallerConfig, realSecret, required } from '@availability/service-core';
import { sealingKeysProblems } from '@availability/messaging';
import { type AddressPolicy, type OutboundClientOptions } from '@availability/outbound-http';
import { SigningKeyRing } from '@availability/webhook-signing';


/**
 * Development/test key for encrypting webhook secrets at rest (32 zero-ish bytes, base64). Public by
 * design: production refuses to start with it.
 */
export const DEV_SECRET_KEY = Buffer.from('availability-dev-secret-key-0001', 'utf8').toString('base64');

export type TriState = 'auto' | 'true' | 'false';
const TRI_STATE: TriState[] = ['auto', 'true', 'false'];

export class ContactDirectoryConfig extends IntegratorCallerConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3001;

  /**
   * Bearer token of the admin API (platform operators, the CLI, tests, benchmarks). The default only
   * suits a development machine: in production it must be a real secret of at least 32 characters.
   */
  @IsString()
  @InProduction(realSecret('dev-admin-token'))
  @IsNotEmpty()
  @MaxLength(512)
  DIRECTORY_ADMIN_TOKEN = 'dev-admin-token';

  /**
   * AES-256-GCM key (32 bytes, base64) that encrypts integrators' webhook secrets at rest. Required
   * in production (the development default is refused there).
   */
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  @InProduction(realSecret(DEV_SECRET_KEY))
  DIRECTORY_SECRET_KEY = DEV_SECRET_KEY;

  /**
   * This service's xkey seed (`SX…`, `npm run nats:config` makes one): seals the webhook secrets it
   * sends the dispatcher. Required in production; without it and DISPATCHER_XKEY no webhook target is served.
   */
  @IsOptional()
  @IsString()
  @InProduction(required)
  DIRECTORY_XKEY_SEED = '';

  /** The webhook dispatcher's public xkey (`X…`): only the holder of its seed can open the sealed secrets. */
  @IsOptional()
  @IsString()
  @InProduction(required)
  DISPATCHER_XKEY = '';

  /**
   * Days a sign-in session's token (portal user or worker) is kept once it expired or was revoked,
   * then pruned; it has let no one in since. Tokens without an expiry are kept while they are live.
   */
  @IsInt()
  @Min(1)
  @Max(3_650)
  SESSION_TOKEN_RETENTION_DAYS = 30;

  /**
   * Days an invitation is kept after it was sent, then pruned, whatever became of it: inviting the
   * same address again afterwards sends a new invitation.
   */
  @IsInt()
  @Min(1)
  @Max(3_650)
  INVITATION_RETENTION_DAYS = 90;

  /** Whether calls to integrators may go to loopback addresses; `auto` = only outside production. */
  @IsIn(TRI_STATE)
  @InProduction(developmentOnly)
  WEBHOOK_ALLOW_LOOPBACK: TriState = 'auto';

  /** Whether calls to integrators may go to private network addresses (10/8, 172.16/12, 192.168/16, …). */
  @IsIn(TRI_STATE)
  WEBHOOK_ALLOW_PRIVATE: TriState = 'false';

  /** How long a replaced webhook secret keeps signing (both secrets sign during the grace period). */
  @IsInt()
  @Min(0)
  @Max(30 * 24 * 3600)
  WEBHOOK_SECRET_GRACE_SECONDS = 24 * 3600;

  /** Timeout of each of the set-up calls `GET /test` and `GET /test/auth`. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TEST_TIMEOUT_MS = 5_000;

  /** Per-integrator timeout of a contact-suggestions search. */
  @IsInt()
  @Min(50)
  @Max(30_000)
  SUGGESTIONS_TIMEOUT_MS = 2_000;

  /** Most bytes of an integrator's contact-suggestions reply that are read. */
  @IsInt()
  @Min(1024)
  @Max(16 * 1024 * 1024)
  SUGGESTIONS_MAX_REPLY_BYTES = 1024 * 1024;

  /** Most suggestions taken from one integrator's reply (the rest are ignored and counted as dropped). */
  @IsInt()
  @Min(1)
  @Max(10_000)
  SUGGESTIONS_MAX_PER_PROVIDER = 500;

  /**
   * Invitation e-mails one organisation may send a day (UTC), whoever of its admins sends them and
   * on whichever instance (0: no limit): nobody can use the platform's mail to spam.
   */
  @IsInt()
  @Min(0)
  @Max(100_000)
  INVITATIONS_PER_ORGANISATION_PER_DAY = 200;

  /** How long an e-mailed sign-in link works (it works once). */
  @IsInt()
  @Min(1)
  @Max(24 * 3600)
  SIGN_IN_CODE_TTL_SECONDS = 15 * 60;

  /** Lifetime of a portal user's token from a sign-in link (operators' tokens never expire). */
  @IsInt()
  @Min(1)
  @Max(90 * 24 * 3600)
  PORTAL_SESSION_TTL_SECONDS = 12 * 3600;

  /** Lifetime of a worker's token from a sign-in link. */
  @IsInt()
  @Min(1)
  @Max(365 * 24 * 3600)
  WORKER_SESSION_TTL_SECONDS = 30 * 24 * 3600;

  /**
   * Sign-in e-mails an hour sent to one address as soon as asked for, whoever asks (0: every one).
   * Past them it is never refused, only slowed (SIGN_IN_LINKS_SLOW_INTERVAL_SECONDS): nobody can
   * flood a mailbox, nor lock its owner out.
   */
  @IsInt()
  @Min(0)
  @Max(10_000)
  SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR = 5;

  /**
   * Past an address's prompt e-mails of the hour, one e-mail at most every this many seconds, and
   * requests meanwhile add none: the longest its owner waits for a working link while others ask for it.
   */
  @IsInt()
  @Min(1)
  @Max(3600)
  SIGN_IN_LINKS_SLOW_INTERVAL_SECONDS = 300;

  /** Sign-in links asked for by one client address per hour, whatever the e-mail address (0: no limit). */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  SIGN_IN_LINKS_PER_CLIENT_PER_HOUR = 30;

  /** How long to wait for notification-service to take a sign-in e-mail before trying again later (the request's answer never waits for it). */
  @IsInt()
  @Min(100)
  @Max(60_000)
  SIGN_IN_MAIL_TIMEOUT_MS = 5_000;
}

/**
 * The keys' start-up checks (the secret key's format, the signing and sealing keys), every problem at once;
 * messages name the variable, never the value.
 */
export function assertKeys(config: ContactDirectoryConfig): void {
  const problems: string[] = [];
  if (!isSecretKey(config.DIRECTORY_SECRET_KEY)) problems.push('DIRECTORY_SECRET_KEY: must be 32 bytes in base64');
  try {
    signingKeys(config);
  } catch (error) {
    problems.push(...(error as ConfigValidationError).problems);
  }
  problems.push(...sealingKeysProblems({ seed: ['DIRECTORY_XKEY_SEED', config.DIRECTORY_XKEY_SEED], peer: ['DISPATCHER_XKEY', config.DISPATCHER_XKEY] }));
  if (problems.length > 0) throw new ConfigValidationError(problems);
}

/**
 * The signing keys of WEBHOOK_SIGNING_KEYS (outside production, an empty value becomes a key generated
 * now and kept in `config`). Throws a ConfigValidationError that never contains key material.
 */
export function signingKeys(config: ContactDirectoryConfig): SigningKeyRing {
  return fromSetting(() => SigningKeyRing.fromSettings(config));
}

function isSecretKey(value: string): boolean {
  return /^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(value) && Buffer.from(value, 'base64').length === 32;
}

/** The 32-byte key that encrypts webhook secrets. */
export function secretKey(config: ContactDirectoryConfig): Buffer {
  return Buffer.from(config.DIRECTORY_SECRET_KEY, 'base64');
}

/** Which addresses calls to integrators may reach; loopback is open by default outside production. */
export function addressPolicy(config: ContactDirectoryConfig): AddressPolicy {
  const resolve = (value: TriState, fallback: boolean) => (value === 'auto' ? fallback : value === 'true');
  return {
    allowLoopback: resolve(config.WEBHOOK_ALLOW_LOOPBACK, config.NODE_ENV !== 'production'),
    allowPrivate: resolve(config.WEBHOOK_ALLOW_PRIVATE, false),
  };
}

/** Options of the client that calls integrators (set-up checks, contact suggestions): built here only. */
export function outboundClientOptions(config: ContactDirectoryConfig): OutboundClientOptions {
  return { policy: addressPolicy(config), connectionsPerOrigin: 16, extraCaCertificates: caFileOf(config, 'OUTBOUND_CA_FILE') };
}

