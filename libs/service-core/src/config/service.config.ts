import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateBy, ValidateIf } from 'class-validator';
import { trustedProxyProblem } from '../http/trusted-proxies.js';
import { IsHttpUrl } from './http-url.js';
import { databaseOverTls, natsOverTls, redisOverTls } from './plain-connections.js';
import { InProduction, realSecret, required, requiredOr } from './production-rules.js';

/**
 * Settings every service shares. A service's own config class extends this one, so all services read
 * the same variable names for the same things. Defaults suit a development machine.
 */
export class ServiceConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** One log line per HTTP request; off in benchmarks where it would measure the logger. */
  @IsBoolean()
  HTTP_REQUEST_LOGS = true;

  @IsString()
  HTTP_HOST = '127.0.0.1';

  /**
   * The proxies in front of this service whose `X-Forwarded-For` is believed (comma-separated
   * addresses or CIDR ranges, nothing broader: trustedProxyProblem): the client address that
   * per-address limits count is then the one they name. Empty: the connection's own address, and the
   * header is ignored, so no client can choose the address it is counted as.
   */
  @IsString()
  @MaxLength(2_000)
  @ValidateBy({
    name: 'addresses or CIDR ranges of the proxies in front of this service, comma-separated (no names such as loopback, no /0)',
    validator: { validate: (value: unknown) => typeof value === 'string' && trustedProxyProblem(value) === undefined },
  })
  TRUST_PROXY = '';

  /**
   * The database, as a libpq-style URL. Over TLS: `?sslmode=verify-full` (the server's certificate
   * checked against the URL's host name), or DATABASE_CA_FILE for a private CA. Other sslmodes are
   * refused: the driver reads `require` and `verify-ca` differently from libpq, and `no-verify` would
   * let anyone on the path read the traffic. The CA is DATABASE_CA_FILE, not the URL's `sslrootcert`.
   */
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  @ValidateBy({ name: 'sslmode=verify-full or sslmode=disable, when an sslmode is given', validator: { validate: (value: unknown) => hasClearSslMode(String(value)) } })
  @ValidateBy({ name: 'no sslrootcert (the CA is DATABASE_CA_FILE)', validator: { validate: (value: unknown) => urlParameter(String(value), 'sslrootcert') === undefined } })
  @InProduction(databaseOverTls)
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

  /**
   * A PEM file of the CA certificates that signed PostgreSQL's certificate, when not a public CA.
   * Setting it makes TLS required (`sslmode=verify-full`, whatever DATABASE_URL says but `disable`).
   */
  @IsString()
  DATABASE_CA_FILE = '';

  /**
   * Production reaches PostgreSQL, NATS and Redis over TLS unless they run on the same machine
   * (plain-connections.ts). True: plain connections are allowed, for a network the operator knows to be
   * private to the platform (e.g. compose's own network, which publishes none of the three).
   */
  @IsBoolean()
  ALLOW_PLAIN_INTERNAL_CONNECTIONS = false;

  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 20;

  /** How long a statement waits for a database connection before its request answers 503 (docs/operator-guide.md). */
  @IsInt()
  @Min(100)
  @Max(60_000)
  DATABASE_CONNECT_TIMEOUT_MS = 5_000;

  /** How long a statement waits for its answer before its request answers 503; migrations have no limit. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  DATABASE_QUERY_TIMEOUT_MS = 30_000;

  /** Comma-separated NATS server URLs. */
  @IsString()
  @InProduction(natsOverTls)
  NATS_URL = 'nats://127.0.0.1:4222';

  /**
   * This service's own NATS nkey seed (`SU…`): the server lets it publish, subscribe and ask only
   * what its role allows (libs/messaging bus-permissions.ts). Required in production by every service
   * that uses NATS (NatsModule refuses to start without it); empty connects without credentials.
   * Never logged.
   */
  @ValidateIf((config: ServiceConfig) => config.NATS_NKEY_SEED !== '')
  @Matches(/^SU[A-Z2-7]{56}$/)
  NATS_NKEY_SEED = '';

  /**
   * A PEM file of the CA certificates that signed the NATS servers' certificates, when not a public
   * CA. Setting it, or a `tls://` URL in NATS_URL, makes TLS required: a server that does not offer it,
   * or whose certificate does not match its host name, is refused. Empty: TLS when the server asks.
   */
  @IsString()
  NATS_CA_FILE = '';

  /** JetStream stream that carries the platform's events. */
  @IsString()
  @Matches(/^[A-Za-z0-9_-]+$/)
  EVENTS_STREAM = 'PLATFORM';

  /**
   * Copies of the event stream and its consumers kept by a NATS cluster (JetStream replicas): 1 on
   * one server, 3 in production so the loss of one server loses no event and stops nothing. At most
   * the cluster's size. An existing stream is brought to this count when contact-directory starts.
   */
  @IsInt()
  @IsIn([1, 3, 5])
  EVENTS_STREAM_REPLICAS = 1;

  /**
   * Bytes the event stream holds at most (each replica on its server's disk), besides its EVENTS_STREAM_MAX_AGE_DAYS.
   * At the limit JetStream refuses new events and the outboxes keep them until older events age out
   * or the limit is raised (docs/operator-guide.md "Bounds"). Below the NATS servers' JetStream
   * storage; an existing stream is brought to it when contact-directory starts (never below what it
   * holds: JetStream would delete events to fit). Default 1 GiB.
   */
  @IsInt()
  @Min(1_048_576)
  EVENTS_STREAM_MAX_BYTES = 1_073_741_824;

  /**
   * Days the event stream keeps an event (JetStream `max_age`; a fraction is allowed, at least a
   * minute): long enough for a consumer that was down to catch up. Every service must have the same
   * value: the logs that recognise events already handled are kept longer than this (a day longer,
   * eventRecordMinRetentionDays), and contact-directory brings an existing stream to it when it
   * starts. Lowering it drops the events older than the new age, read or not.
   */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(1 / 1440)
  @Max(3_650)
  EVENTS_STREAM_MAX_AGE_DAYS = 7;

  /**
   * Prefix of every NATS subject the platform uses, events and requests alike (e.g. `staging.`), so
   * several environments or test runs can share one NATS cluster without seeing each other.
   * Empty in a normal deployment.
   */
  @IsOptional()
  @Matches(/^([A-Za-z0-9_-]+\.)*$/)
  NATS_SUBJECT_PREFIX = '';

  /** Redis for durable job queues (BullMQ). Needs AOF persistence and `maxmemory-policy noeviction`. */
  @IsString()
  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  @InProduction(redisOverTls)
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * With a `rediss://` REDIS_URL: a PEM file of the CA certificates that signed the Redis servers'
   * certificates, when not a public CA. Certificates are always checked against the host name.
   */
  @IsString()
  REDIS_CA_FILE = '';

  /**
   * Comma-separated `host:port` of Redis Sentinels. When set, every Redis client (job queues, rate
   * limits) asks them for the current primary of `REDIS_SENTINEL_MASTER` and follows a failover;
   * REDIS_URL then gives only the password, user name, database and TLS. Empty: REDIS_URL's host.
   */
  @ValidateIf((config: ServiceConfig) => config.REDIS_SENTINELS !== '')
  @Matches(/^([^\s,:]+:\d{1,5})(,[^\s,:]+:\d{1,5})*$/)
  REDIS_SENTINELS = '';

  /** The primary's name in the Sentinels' configuration (`sentinel monitor <name> …`). */
  @IsString()
  @Matches(/^[A-Za-z0-9._-]+$/)
  REDIS_SENTINEL_MASTER = 'platform';

  /** Key prefix of the job queues in Redis (separates environments and test runs on one Redis). */
  @IsString()
  @Matches(/^[A-Za-z0-9_-]+$/)
  QUEUE_PREFIX = 'ap';

  /**
   * Completed jobs each queue keeps in Redis at most (for de-duplication by job id and the queue
   * dashboard); older ones are removed as new ones complete. A job may ask to keep fewer, or for less time.
   */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  QUEUE_COMPLETED_JOBS_KEPT = 20_000;

  /** Failed jobs each queue keeps in Redis at most; the records that matter are in PostgreSQL (docs/operator-guide.md "Bounds"). */
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  QUEUE_FAILED_JOBS_KEPT = 20_000;

  /** How long a verified credential (API key, worker token) is trusted before the directory is asked again. */
  @IsInt()
  @Min(0)
  CREDENTIAL_CACHE_TTL_MS = 30_000;

  /** How long to wait for contact-directory's answer to a request. */
  @IsInt()
  @Min(50)
  DIRECTORY_TIMEOUT_MS = 2_000;

  /**
   * When set, `GET /metrics` (Prometheus) needs `Authorization: Bearer <METRICS_TOKEN>`; open when
   * empty, which only development allows (metrics tell who calls what, and how often).
   */
  @IsOptional()
  @InProduction(realSecret())
  @IsString()
  METRICS_TOKEN = '';

  /**
   * Processes of this instance, sharing its HTTP port (node:cluster): one uses one core. Each is a
   * whole instance; see runServiceProcesses. 1 runs the service in the started process itself.
   */
  @IsInt()
  @Min(1)
  @Max(64)
  SERVICE_PROCESSES = 1;

  /** Longest a client may take to send a whole request (headers and body); then 408 and the connection is closed. */
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  /**
   * Requests one credential (API key, worker, portal or operator token; the client address for
   * requests without one) may make a minute on this service, counted in Redis across its instances.
   * Over it: 429 with Retry-After. 0 turns limits off. Probes, /metrics and documents are not counted.
   */
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_MINUTE = 6_000;

  /** Whether this instance publishes its outbox. Turn off only where another instance does it. */
  @IsBoolean()
  OUTBOX_RELAY_ENABLED = true;

  /**
   * An OpenTelemetry collector's OTLP/HTTP address (e.g. `http://otel-collector:4318`): spans are sent
   * to `<endpoint>/v1/traces` as JSON. Empty: tracing off, nothing is recorded or sent (the trace
   * context still travels, so logs keep one trace id across services).
   */
  @ValidateIf((config: ServiceConfig) => config.OTEL_EXPORTER_OTLP_ENDPOINT !== '')
  @IsHttpUrl()
  OTEL_EXPORTER_OTLP_ENDPOINT = '';

  /** Headers of every export, `name=value` pairs separated by commas (e.g. a tracing backend's key). Never logged. */
  @IsString()
  @MaxLength(8192)
  OTEL_EXPORTER_OTLP_HEADERS = '';

  /** The service's name on its spans; empty: its own (`offers-api`, …). */
  @IsString()
  @Matches(/^[A-Za-z0-9._-]*$/)
  OTEL_SERVICE_NAME = '';

  /**
   * Share of new traces recorded (0–1). A trace continued from a caller's `traceparent` follows the
   * caller's sampling decision, so a trace is recorded whole or not at all.
   */
  @IsNumber()
  @Min(0)
  @Max(1)
  TRACE_SAMPLE_RATIO = 1;
}

/**
 * Settings of a service that uses the bus (every platform service but the example integrator): in
 * production it must have its own NATS credentials, listed with every other offending setting.
 */
export class BusServiceConfig extends ServiceConfig {
  @InProduction(required)
  override NATS_NKEY_SEED = '';

  /**
   * How often each instance deletes what its service's retention policies are past (the delivery
   * log, push and notification logs, published outbox rows, …; docs/operator-guide.md "Retention").
   * Every instance prunes; they share the work row by row.
   */
  @IsInt()
  @Min(1_000)
  @Max(86_400_000)
  RETENTION_INTERVAL_MS = 60_000;

  /** Rows one pruning statement deletes at most: small enough that a batch holds its locks for milliseconds. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  RETENTION_BATCH_ROWS = 500;

  /** How long one run goes on batching one class before it leaves the rest to the next run. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  RETENTION_RUN_MS = 5_000;

  /**
   * Days a parked event is kept once an operator marked it handled (`handled_at`; a fraction is
   * allowed); one not handled is kept until it is. Used by the services that consume events (notification-service, webhook-dispatcher).
   */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(1 / 1440)
  @Max(3_650)
  PARKED_EVENT_RETENTION_DAYS = 30;

  /** Hours published outbox rows are kept for inspection before they are pruned (a fraction is allowed, at least a minute). */
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(1 / 60)
  @Max(8_760)
  OUTBOX_RETENTION_HOURS = 24;
}

/**
 * Settings of a service that calls integrators (contact-directory: profile checks and suggestions;
 * webhook-dispatcher: webhooks). Both must have the same values, or an integrator that passes the
 * profile check could not verify or be reached by the deliveries.
 */
export class IntegratorCallerConfig extends BusServiceConfig {
  /**
   * A PEM file of CA certificates trusted for https integrators besides the public CAs (a private
   * deployment's own CA). Empty: public CAs only. Certificates are always checked against the host name.
   */
  @IsString()
  OUTBOUND_CA_FILE = '';

  /**
   * The platform's ed25519 keys for `v1a` signatures, a JSON array (first entry signs, every entry is
   * published at webhook-dispatcher's /.well-known/webhook-keys.json): `[{"kid":"2026-11","privateKeyPem":"-----BEGIN PRIVATE KEY-----\n…"}]`.
   * Required in production; empty elsewhere = a key generated at start-up. See docs/operator-guide.md "Signing keys".
   */
  @IsString()
  @MaxLength(65_536)
  @InProduction(requiredOr('WEBHOOK_SIGNING_KEYS_FILE'))
  WEBHOOK_SIGNING_KEYS = '';

  /** Instead of WEBHOOK_SIGNING_KEYS: a file holding the same JSON (e.g. a mounted secret). */
  @IsString()
  @MaxLength(4096)
  WEBHOOK_SIGNING_KEYS_FILE = '';
}

/** A URL's query parameter; undefined when there is none, or when it is not a URL (which @Matches reports). */
function urlParameter(url: string, name: string): string | undefined {
  try {
    return new URL(url).searchParams.get(name) ?? undefined;
  } catch {
    return undefined;
  }
}

/** True when a PostgreSQL URL names no sslmode, or one whose meaning is the same in every client. */
function hasClearSslMode(url: string): boolean {
  const sslmode = urlParameter(url, 'sslmode');
  return sslmode === undefined || sslmode === 'verify-full' || sslmode === 'disable';
}

