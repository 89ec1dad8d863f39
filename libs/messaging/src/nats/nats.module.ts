import { type DynamicModule, Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type ConnectionOptions, type NatsConnection, nkeyAuthenticator } from '@nats-io/transport-node';
import type { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { caFileOf, ConfigValidationError, type HealthContributor, natsRequiresTls, natsServers, type ServiceConfig } from '@availability/service-core';
import { JETSTREAM, JETSTREAM_MANAGER, NATS_CONNECTION, NATS_SUBJECT_PREFIX } from './nats.tokens.js';
import { RequestReply } from './request-reply.js';
import { busInboxPrefix } from './bus-permissions.js';

export interface NatsOptions {
  /** Comma-separated server URLs. */
  servers: string;
  /** Prefix of every subject the platform uses (NATS_SUBJECT_PREFIX). */
  subjectPrefix: string;
  /** The service's name: shows in the server's connection list and names its reply inbox. */
  name: string;
  /** The service's nkey seed (NATS_NKEY_SEED); empty connects without credentials (a server with no authorisation). */
  nkeySeed?: string;
  /** Refuse to start without `nkeySeed` (true in production: the bus there always requires credentials). */
  requireCredentials?: boolean;
  /**
   * TLS required: a server that does not offer it is refused, and its certificate is checked against
   * the host name and `ca` (PEM; absent: the public CAs). Absent: TLS only when the server asks for it.
   */
  tls?: { ca?: string };
}

/** TLS is required when NATS_CA_FILE is set or any of NATS_URL's servers is named `tls://` (natsRequiresTls). */
export function natsTls(config: Pick<ServiceConfig, 'NATS_URL' | 'NATS_CA_FILE'>): NatsOptions['tls'] {
  if (!natsRequiresTls(config)) return undefined;
  const ca = caFileOf(config, 'NATS_CA_FILE');
  return ca === undefined ? {} : { ca };
}

/**
 * How a service connects: with its own nkey, and with replies under its own inbox prefix, the only
 * inbox its NATS user may subscribe to (bus-permissions.ts), so no other client reads its replies.
 */
export function natsConnectionOptions(options: NatsOptions): ConnectionOptions {
  if (options.requireCredentials && !options.nkeySeed) {
    throw new ConfigValidationError(['NATS_NKEY_SEED: must be set when NODE_ENV is production (npm run nats:config makes one per service)']);
  }
  return {
    // Every server of a cluster: the client starts on one and, when it goes, reconnects to another.
    servers: natsServers(options.servers),
    name: options.name,
    inboxPrefix: busInboxPrefix(options.name, options.subjectPrefix),
    ...(options.nkeySeed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(options.nkeySeed)) } : {}),
    // The client itself reads no `tls://` scheme: without this it would talk in clear to a server that offers no TLS.
    ...(options.tls ? { tls: options.tls.ca ? { ca: options.tls.ca } : {} } : {}),
    // Never gives up: a service outlives any server of the cluster, or the whole cluster, going away.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // No stack trace captured per request/publish, a measurable cost on the hot path.
    noAsyncTraces: true,
  };
}

/** Connects; a failure names the servers tried (host and port only), so a start that fails says which and why. */
async function connectNamingServers(options: ConnectionOptions): Promise<NatsConnection> {
  try {
    return await connect(options);
  } catch (error) {
    const servers = [options.servers ?? []].flat().map((server) => server.replace(/^[a-z]+:\/\/([^@/]*@)?/, ''));
    throw new Error(`NATS at ${servers.join(', ')} (NATS_URL) cannot be reached: ${(error as Error).message}`, { cause: error });
  }
}

@Injectable()
class NatsLifecycle implements OnApplicationShutdown {
  private readonly logger = new Logger('Nats');

  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {}

  /** Drain lets in-flight publishes and acks finish before the socket closes. */
  async onApplicationShutdown(): Promise<void> {
    if (this.connection.isClosed()) return;
    await this.connection.drain().catch((error: Error) => this.logger.warn(`drain failed: ${error.message}`));
  }
}

/** One NATS connection per process, shared by JetStream publishing, consuming and request/reply. */
@Global()
@Module({})
export class NatsModule {
  /** How every service connects: its name, and the shared settings of ServiceConfig. */
  static forService(name: string, config: ServiceConfig): DynamicModule {
    return NatsModule.forRoot(() => ({
      servers: config.NATS_URL,
      name,
      subjectPrefix: config.NATS_SUBJECT_PREFIX,
      nkeySeed: config.NATS_NKEY_SEED,
      requireCredentials: config.NODE_ENV === 'production',
      tls: natsTls(config),
    }));
  }

  static forRoot(options: () => NatsOptions): DynamicModule {
    return {
      module: NatsModule,
      providers: [
        {
          provide: NATS_CONNECTION,
          useFactory: () => connectNamingServers(natsConnectionOptions(options())),
        },
        { provide: JETSTREAM, useFactory: (nc: NatsConnection) => jetstream(nc), inject: [NATS_CONNECTION] },
        { provide: JETSTREAM_MANAGER, useFactory: (nc: NatsConnection) => jetstreamManager(nc), inject: [NATS_CONNECTION] },
        { provide: NATS_SUBJECT_PREFIX, useFactory: () => options().subjectPrefix },
        NatsLifecycle,
        RequestReply,
      ],
      exports: [NATS_CONNECTION, JETSTREAM, JETSTREAM_MANAGER, NATS_SUBJECT_PREFIX, RequestReply],
    };
  }
}

@Injectable()
export class NatsHealth implements HealthContributor {
  constructor(@Inject(NATS_CONNECTION) private readonly connection: NatsConnection) {}

  async check(indicators: HealthIndicatorService): Promise<HealthIndicatorResult> {
    const session = indicators.check('nats');
    if (this.connection.isClosed()) return session.down({ message: 'connection closed' });
    try {
      const rtt = await this.connection.rtt();
      return session.up({ rttMs: rtt });
    } catch (error) {
      return session.down({ message: (error as Error).message });
    }
  }
}

export type { JetStreamClient, JetStreamManager, NatsConnection };
