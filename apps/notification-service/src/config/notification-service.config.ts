import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { BusServiceConfig, developmentOnly, InProduction, oneOf, unset } from '@availability/service-core';

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

  /** SMTP server, e.g. smtp://user:pass@mail.example:587 or smtps://…; smtp://127.0.0.1:2525 locally. */
  @IsString()
  @Matches(/^smtps?:\/\//, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' })
  SMTP_URL = 'smtp://127.0.0.1:2525';

  @IsString()
  MAIL_FROM = 'Availability Platform <no-reply@availability.example>';

  /** Link put in invitation e-mails (the worker app's download / sign-up page). */
  @IsString()
  INVITE_LINK_URL = 'https://availability.example/join';

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
