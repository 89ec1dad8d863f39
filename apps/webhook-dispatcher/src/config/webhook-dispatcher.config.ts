import { IsBoolean, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { caFileOf, ConfigValidationError, developmentOnly, fromSetting, InProduction, IntegratorCallerConfig, IsHttpUrl, OutlivesEventStream, realSecret, required } from '@availability/service-core';
import { sealingKeysProblems } from '@availability/messaging';
import { DEFAULT_WEBHOOK_TIMEOUT_MS, type OutboundClientOptions } from '@availability/outbound-http';
import { SigningKeyRing } from '@availability/webhook-signing';
import type { EndpointGateOptions } from '../domain/endpoint-gate.js';


/**
 * webhook-dispatcher's settings (README "Configuration"). The retry defaults spread 30 attempts over
 * about a day; tests shrink them to milliseconds.
 */
export class WebhookDispatcherConfig extends IntegratorCallerConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3003;

  /** Bearer token of the operator API and the queue dashboard. A real secret of at least 32 characters in production. */
  @IsString()
  @InProduction(realSecret('dev-dispatcher-admin-token'))
  @IsNotEmpty()
  @MaxLength(512)
  DISPATCHER_ADMIN_TOKEN = 'dev-dispatcher-admin-token';

  /**
   * This service's xkey seed (`SX…`, `npm run nats:config` makes one): opens the webhook secrets
   * contact-directory seals for it. Required in production; without it no webhook target resolves.
   */
  @IsOptional()
  @IsString()
  @InProduction(required)
  DISPATCHER_XKEY_SEED = '';

  /** contact-directory's public xkey (`X…`): a sealed target is accepted only if that key sealed it. */
  @IsOptional()
  @IsString()
  @InProduction(required)
  DIRECTORY_XKEY = '';

  /** Per-attempt timeout of a call to an integrator (connect, headers and body). */
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS = DEFAULT_WEBHOOK_TIMEOUT_MS;

  /** Bytes of the integrator's response body kept in the attempt log. */
  @IsInt()
  @Min(0)
  @Max(65_536)
  WEBHOOK_RESPONSE_EXCERPT_BYTES = 1024;

  /** Attempts before a delivery is dead-lettered (first attempt included). */
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_MAX_ATTEMPTS = 30;

  /** Attempts for a 4xx other than 408/410/425/429 (and 3xx): a few, in case it was a glitch. */
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_CLIENT_ERROR_MAX_ATTEMPTS = 3;

  /** Ceiling of the first retry's delay; each retry's ceiling grows by the factor, up to the cap (full jitter below it). */
  @IsInt()
  @Min(1)
  WEBHOOK_BACKOFF_BASE_MS = 10_000;

  @IsNumber()
  @Min(1)
  @Max(10)
  WEBHOOK_BACKOFF_FACTOR = 2;

  @IsInt()
  @Min(1)
  WEBHOOK_BACKOFF_CAP_MS = 2 * 60 * 60 * 1000;

  /** Longest Retry-After honoured; a longer one is cut to this. */
  @IsInt()
  @Min(0)
  WEBHOOK_RETRY_AFTER_MAX_MS = 6 * 60 * 60 * 1000;

  /** Calls in flight in this process across all endpoints (BullMQ worker concurrency). */
  @IsInt()
  @Min(1)
  @Max(2000)
  WEBHOOK_CONCURRENCY = 128;

  /** Calls in flight per endpoint (organisation) in this process: a slow endpoint holds at most this many slots. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_ENDPOINT_CONCURRENCY = 16;

  /** Consecutive failures (timeouts, connection errors, 5xx) that open an endpoint's circuit. */
  @IsInt()
  @Min(1)
  WEBHOOK_BREAKER_THRESHOLD = 10;

  /** How long an open circuit holds an endpoint's calls back before one trial call. */
  @IsInt()
  @Min(10)
  WEBHOOK_BREAKER_COOLDOWN_MS = 30_000;

  /** An endpoint failing without a single success for this long is disabled (and its organisation told). */
  @IsNumber()
  @Min(0)
  WEBHOOK_DISABLE_AFTER_HOURS = 24;

  /** How long a resolved base URL + secrets is cached (changes are also broadcast and evict at once). */
  @IsInt()
  @Min(0)
  WEBHOOK_TARGET_CACHE_TTL_MS = 60_000;

  /**
   * How long an event's first attempt waits, once its call is over, for others to share the statement
   * that logs it (the event is acked after it); the same for an event whose endpoint holds it back from
   * the start. At a steady trickle this saves a database round trip per event; in a burst a statement
   * is written once a quarter of the intake slots wait for it (lingeringBatchSize). 0 logs each at once.
   */
  @IsInt()
  @Min(0)
  @Max(1000)
  WEBHOOK_RECORD_LINGER_MS = 50;

  /** Events taken from JetStream at once. */
  @IsInt()
  @Min(1)
  @Max(5000)
  WEBHOOK_INTAKE_CONCURRENCY = 512;

  /**
   * How long a job's lock lasts without renewal: after a crash, the jobs that were running are taken
   * up again (by any instance) within about this long. Renewed every half of it while a call runs.
   */
  @IsInt()
  @Min(1_000)
  WEBHOOK_LOCK_DURATION_MS = 30_000;

  /** How long JetStream waits for an event's ack before redelivering it (e.g. after a crash). */
  @IsInt()
  @Min(1_000)
  WEBHOOK_INTAKE_ACK_WAIT_MS = 30_000;

  /**
   * A delivery neither finished nor held whose attempt is overdue by this long is queued again from the
   * delivery log (its job was lost: Redis lost its data, or a crash fell between the log and the queue).
   * Longer than an attempt can take (WEBHOOK_TIMEOUT_MS) and than a job's lock.
   */
  @IsInt()
  @Min(1_000)
  WEBHOOK_RECOVERY_AFTER_MS = 300_000;

  /** SSRF policy: loopback and private addresses are refused unless allowed here (tests and development allow loopback). */
  @IsBoolean()
  @InProduction(developmentOnly)
  WEBHOOK_ALLOW_LOOPBACK = false;

  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE = false;

  /**
   * Days a finished delivery (succeeded or skipped) is kept with its attempts after its last change,
   * then pruned: the delivery log shows this far back, and a redelivery reaches no further. At least
   * a day longer than the event stream keeps events, so a copy of an event never finds its delivery gone.
   */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @OutlivesEventStream()
  @Max(3_650)
  WEBHOOK_DELIVERY_RETENTION_DAYS = 30;

  /**
   * Days a dead letter (a delivery given up) is kept after it died. 0: until it is handled (redelivered,
   * after which it is kept as any other delivery); else at least as long as the delivery log's minimum.
   */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Max(3_650)
  @OutlivesEventStream({ orZero: true })
  WEBHOOK_DEAD_LETTER_RETENTION_DAYS = 0;

  /** How long verifiers may cache the published key set (its Cache-Control max-age). */
  @IsInt()
  @Min(0)
  @Max(86_400)
  WEBHOOK_KEY_SET_MAX_AGE_SECONDS = 300;

  /**
   * The address integrators reach this service at (scheme, host, port), where the key set is published
   * below: the portal shows it. Empty: http://127.0.0.1:<PORT>, as on a developer's machine.
   */
  @ValidateIf((config: WebhookDispatcherConfig) => config.WEBHOOK_PUBLIC_URL !== '')
  @IsHttpUrl()
  WEBHOOK_PUBLIC_URL = '';
}

/**
 * Rules that depend on more than one setting, applied at start-up; messages name variables, never values.
 * Outside production, loopback calls are allowed unless WEBHOOK_ALLOW_LOOPBACK says otherwise.
 */
export function resolveDispatcherConfig(config: WebhookDispatcherConfig, env: Record<string, string | undefined> = process.env): WebhookDispatcherConfig {
  const problems = sealingKeysProblems({ seed: ['DISPATCHER_XKEY_SEED', config.DISPATCHER_XKEY_SEED], peer: ['DIRECTORY_XKEY', config.DIRECTORY_XKEY] });
  if (problems.length > 0) throw new ConfigValidationError(problems);
  if (config.NODE_ENV !== 'production' && (env.WEBHOOK_ALLOW_LOOPBACK ?? '') === '') config.WEBHOOK_ALLOW_LOOPBACK = true;
  signingKeys(config);
  return config;
}

/** Options of the client that delivers webhooks: built here only. */
export function outboundClientOptions(config: WebhookDispatcherConfig): OutboundClientOptions {
  return {
    policy: { allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    // Several organisations may share one host (a multi-tenant integrator): the pool per origin must
    // never be what limits them, or one hanging organisation would hold the connections of the others.
    connectionsPerOrigin: config.WEBHOOK_CONCURRENCY + config.WEBHOOK_INTAKE_CONCURRENCY,
    extraCaCertificates: caFileOf(config, 'OUTBOUND_CA_FILE'),
  };
}

/** The endpoint gate's settings: the per-endpoint limits and thresholds, and the fixed timings of its line. */
export function endpointGateOptions(config: WebhookDispatcherConfig): EndpointGateOptions {
  return {
    inFlightLimit: config.WEBHOOK_ENDPOINT_CONCURRENCY,
    // A healthy endpoint's backlog waits in line here rather than going through Redis; a slow one's line
    // is as short as its pace, so it cannot take the slots other endpoints need.
    maxWaiting: Math.max(config.WEBHOOK_ENDPOINT_CONCURRENCY, config.WEBHOOK_INTAKE_CONCURRENCY - config.WEBHOOK_ENDPOINT_CONCURRENCY),
    lineWaitMs: 1_000,
    stallMs: 500,
    busyRetryMs: 1_000,
    // Half of the smaller pool of slots (first attempts hold the intake's while they call, the rest the
    // worker's): endpoints that hang or answer slowly never hold more, whatever their number.
    slowShare: Math.max(1, Math.floor(Math.min(config.WEBHOOK_CONCURRENCY, config.WEBHOOK_INTAKE_CONCURRENCY) / 2)),
    failureThreshold: config.WEBHOOK_BREAKER_THRESHOLD,
    cooldownMs: config.WEBHOOK_BREAKER_COOLDOWN_MS,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
    healthTtlMs: 5_000,
  };
}


/**
 * The signing keys of WEBHOOK_SIGNING_KEYS (outside production, an empty value becomes a key generated
 * now and kept in `config`). Throws a ConfigValidationError that never contains key material.
 */
export function signingKeys(config: WebhookDispatcherConfig): SigningKeyRing {
  return fromSetting(() => SigningKeyRing.fromSettings(config));
}
