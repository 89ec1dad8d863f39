import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateBy, ValidateIf } from 'class-validator';
import { BusServiceConfig, developmentOnly, InProduction, IsHttpUrl, isUrlWithHost, oneOf, OutlivesEventStream, required, unset } from '@availability/service-core';
import { DEFAULT_PUSH_SERVICE_HOSTS, PUSH_SERVICE_HOST_PATTERN, pushServiceHosts } from '../web-push/subscription-rules.js';

/** notification-service settings (on top of ServiceConfig); see apps/notification-service/README.md. */
export class NotificationServiceConfig extends BusServiceConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3002;

  /** `fcm` sends through Firebase Cloud Messaging; `recording` only records (development, tests, benchmarks). */
  @IsIn(['fcm', 'recording'])
  @InProduction(oneOf('fcm'))
  PUSH_TRANSPORT: 'fcm' | 'recording' = 'recording';

  /** The Firebase service account: its JSON itself, or a path to the JSON file. Required with PUSH_TRANSPORT=fcm. */
  @IsOptional()
  @IsString()
  FCM_SERVICE_ACCOUNT_JSON = '';

  /** Recording transport only: JSON map token → FCM error code (or {code, times, retryAfterMs}) to fail with. */
  @IsOptional()
  @IsString()
  @InProduction(unset)
  RECORDING_PUSH_FAILURES = '';

  /** How long FCM keeps trying to deliver a push to an offline device (Android ttl, apns-expiration). */
  @IsInt()
  @Min(0)
  @Max(28 * 24 * 3600)
  PUSH_TTL_SECONDS = 24 * 3600;

  /**
   * Web Push (the worker web app): the VAPID key pair, base64url as `web-push generate-vapid-keys`
   * prints it (public: the 65-byte P-256 point browsers subscribe with; private: 32 bytes). Required
   * in production; elsewhere, without them, Web Push is off. Never logged.
   */
  @IsOptional()
  @IsString()
  @Matches(/^$|^[A-Za-z0-9_-]{87}$/, { message: 'VAPID_PUBLIC_KEY must be a base64url P-256 public key (87 characters)' })
  @InProduction(required)
  VAPID_PUBLIC_KEY = '';

  @IsOptional()
  @IsString()
  @Matches(/^$|^[A-Za-z0-9_-]{43}$/, { message: 'VAPID_PRIVATE_KEY must be a base64url P-256 private key (43 characters)' })
  @InProduction(required)
  VAPID_PRIVATE_KEY = '';

  /** Who push services contact about our pushes: `mailto:` address or `https:` URL (RFC 8292). */
  @IsOptional()
  @IsString()
  @Matches(/^$|^(mailto:[^\s@]+@[^\s@]+|https:\/\/[^\s]+)$/, { message: 'VAPID_SUBJECT must be a mailto: address or an https: URL' })
  @MaxLength(256)
  @InProduction(required)
  VAPID_SUBJECT = '';

  /** Lets Web Push subscriptions name a push service on loopback (http or https): tests and development only. */
  @IsIn(['true', 'false'])
  @InProduction(developmentOnly)
  WEB_PUSH_ALLOW_LOOPBACK: 'true' | 'false' = 'false';

  /**
   * The push services Web Push subscriptions may name (comma-separated host names; `*.` stands for
   * one label): the major browsers' by default. Endpoints must also be https on 443. Loopback push
   * services are WEB_PUSH_ALLOW_LOOPBACK's alone (development and tests).
   */
  @IsString()
  @MaxLength(2000)
  @ValidateBy({
    name: 'push service host names',
    validator: { validate: (value: unknown) => typeof value === 'string' && pushServiceHosts(value).every((entry) => PUSH_SERVICE_HOST_PATTERN.test(entry)) },
  }, { message: 'WEB_PUSH_SERVICE_HOSTS must be host names of at least two labels, or *. and such a name, comma-separated' })
  WEB_PUSH_SERVICE_HOSTS = DEFAULT_PUSH_SERVICE_HOSTS;

  /** Time for one Web Push request (connect, send, answer); a timeout is retried like a 503. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEB_PUSH_TIMEOUT_MS = 10_000;

  /** Events handled at once by this instance (JetStream consumer). */
  @IsInt()
  @Min(1)
  @Max(256)
  EVENT_CONCURRENCY = 8;

  /** Push jobs (each one sendEach call of up to 500 messages) run at once by this instance. */
  @IsInt()
  @Min(1)
  @Max(100)
  PUSH_WORKER_CONCURRENCY = 4;

  /** Attempts per push job before remaining devices are recorded as failed. */
  @IsInt()
  @Min(1)
  @Max(50)
  PUSH_ATTEMPTS = 8;

  /** First retry delay of a push job; doubles each attempt (a Retry-After from FCM wins when longer). */
  @IsInt()
  @Min(10)
  PUSH_BACKOFF_MS = 1_000;

  /**
   * A push or e-mail whose job made no progress for this long (beyond the longest back-off its job
   * waits for) is queued again from the database by the recovery sweeps: its job was lost with Redis's
   * data, or its process died mid-send and nothing ran the job again. Also how old a push's `sending`
   * claim must be before another job may take it over. Far longer than a send (at most 500 messages)
   * can take.
   */
  @IsInt()
  @Min(1_000)
  JOB_RECOVERY_AFTER_MS = 5 * 60_000;

  /** How often each instance's push and e-mail recovery sweeps look for such jobs. */
  @IsInt()
  @Min(100)
  JOB_RECOVERY_INTERVAL_MS = 60_000;

  /**
   * Days a worker's notification (what the app lists) is kept, then pruned; never while its offer
   * event's pushes are still being sent. At least a day longer than the event stream keeps events: the
   * row is also what tells a copy of the event that its worker was notified already.
   */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @OutlivesEventStream()
  @Max(3_650)
  WORKER_NOTIFICATION_RETENTION_DAYS = 30;

  /** Days the push log (one row per event and device) is kept, then pruned, as WORKER_NOTIFICATION_RETENTION_DAYS. */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @OutlivesEventStream()
  @Max(3_650)
  PUSH_LOG_RETENTION_DAYS = 30;

  /**
   * Days an answer is kept after its digest e-mail went (or, never e-mailed, after it was recorded),
   * then pruned. At least a day longer than the event stream keeps events, as for notifications.
   */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @OutlivesEventStream()
  @Max(3_650)
  ANSWER_RETENTION_DAYS = 30;

  /** E-mail jobs sent at once by this instance. */
  @IsInt()
  @Min(1)
  @Max(100)
  EMAIL_WORKER_CONCURRENCY = 4;

  @IsInt()
  @Min(1)
  @Max(50)
  EMAIL_ATTEMPTS = 10;

  @IsInt()
  @Min(10)
  EMAIL_BACKOFF_MS = 2_000;

  /**
   * The mail relay, credentials in the URL: `smtps://user:pass@mail.example:465` (TLS from the first
   * byte) or `smtp://user:pass@mail.example:587` (STARTTLS, required for a relay on another machine:
   * one that does not offer it is refused before any password is sent). smtp://127.0.0.1:2525 locally.
   */
  @IsString()
  @ValidateBy({ name: 'an smtp:// or smtps:// URL naming its host', validator: { validate: (value: unknown) => isUrlWithHost(String(value), ['smtp:', 'smtps:']) } })
  SMTP_URL = 'smtp://127.0.0.1:2525';

  /**
   * A PEM file of the CA certificates that signed the relay's certificate, when not a public CA.
   * Setting it makes TLS required, on this machine too.
   */
  @IsString()
  SMTP_CA_FILE = '';

  /**
   * True: mail goes in clear to a relay on another machine that offers no STARTTLS, such as compose's
   * development mail catcher. Never with credentials worth keeping; refused in production.
   */
  @IsBoolean()
  @InProduction(developmentOnly)
  SMTP_ALLOW_PLAIN = false;

  /**
   * The longest one e-mail's send may take, connecting included. A relay slower than this (or one
   * that accepts the connection and goes silent) fails the attempt, which is retried like a relay
   * that is down; it also bounds how long a stop waits for e-mails in hand.
   */
  @IsInt()
  @Min(1_000)
  @Max(120_000)
  SMTP_TIMEOUT_MS = 15_000;

  @IsString()
  MAIL_FROM = 'Availability Platform <no-reply@availability.example>';

  /**
   * Link put in invitation e-mails (`?invite=<id>` added). Empty: the portal's join page,
   * `<PORTAL_URL>/join`, which says what happens next and leads to the worker sign-in.
   */
  @ValidateIf((config: NotificationServiceConfig) => config.INVITE_LINK_URL !== '')
  @IsHttpUrl()
  INVITE_LINK_URL = '';

  /** The web portal's address: sign-in links go to `<PORTAL_URL>/sign-in` (portal users) and `<PORTAL_URL>/worker/sign-in`. */
  @IsHttpUrl({ withoutQueryOrFragment: true })
  PORTAL_URL = 'http://localhost:3005';

  /** Answers to one offer are e-mailed to its notify address at most once per window. */
  @IsInt()
  @Min(100)
  EMAIL_DIGEST_WINDOW_MS = 60_000;

  /**
   * /dev/push-log and /dev/push-failures: `auto` serves them exactly when PUSH_TRANSPORT=recording
   * (which production refuses), `false` never. They show device tokens and offer titles to anyone who
   * can reach the port: `true` is refused in production.
   */
  @IsIn(['auto', 'true', 'false'])
  @InProduction(developmentOnly)
  DEV_ENDPOINTS: 'auto' | 'true' | 'false' = 'auto';
}
