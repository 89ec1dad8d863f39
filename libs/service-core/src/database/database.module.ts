import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { caFileOf } from '../config/ca-file.js';
import { ConfigValidationError } from '../config/load-config.js';
import type { ServiceConfig } from '../config/service.config.js';
import { isDatabaseUnavailable, isUntrustedDatabase } from './database-unavailable.js';
import { PooledClient } from './pooled-client.js';

type DatabaseSettings = Pick<ServiceConfig, 'DATABASE_URL' | 'DATABASE_CA_FILE' | 'DATABASE_POOL_SIZE' | 'DATABASE_CONNECT_TIMEOUT_MS' | 'DATABASE_QUERY_TIMEOUT_MS'>;

/**
 * The URL the PostgreSQL driver is given: DATABASE_URL, and with DATABASE_CA_FILE, TLS required
 * (`sslmode=verify-full`) and that CA trusted (the driver reads the file `sslrootcert` names).
 */
export function databaseUrl(config: Pick<ServiceConfig, 'DATABASE_URL' | 'DATABASE_CA_FILE'>): string {
  if (config.DATABASE_CA_FILE === '') return config.DATABASE_URL;
  caFileOf(config, 'DATABASE_CA_FILE'); // read now: a file that cannot serve stops the start, named
  const url = new URL(config.DATABASE_URL);
  if (url.searchParams.get('sslmode') === 'disable') throw new ConfigValidationError(['DATABASE_CA_FILE: is set, but DATABASE_URL says sslmode=disable']);
  url.searchParams.set('sslmode', 'verify-full');
  url.searchParams.set('sslrootcert', config.DATABASE_CA_FILE);
  return url.toString();
}

// bigint ids (bigserial) come back as numbers: they stay far below 2^53 and the spec types them integer.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export interface DatabaseOptions {
  url: string;
  /** The service's own Postgres schema; no other service reads it. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  poolSize: number;
  applicationName: string;
  /**
   * How long a statement waits for a connection, new or from the pool, before it fails (and its
   * request answers 503). Without it a request waits as long as the kernel keeps trying to reach an
   * unreachable server, minutes. Default 5 s.
   */
  connectTimeoutMs?: number;
  /**
   * How long a statement waits for its answer before it fails (its request answering 503): a server
   * cut off without a word (a network partition) never answers. 0: no limit, for migrations, whose
   * statements may rightly run for minutes. Default 30 s.
   */
  queryTimeoutMs?: number;
}

/** Idle time before TCP keep-alive probes start, so a connection whose server vanished is dropped, not reused. */
const KEEP_ALIVE_DELAY_MS = 10_000;

export function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      Client: PooledClient,
      max: options.poolSize,
      application_name: options.applicationName,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      query_timeout: options.queryTimeoutMs === 0 ? undefined : (options.queryTimeoutMs ?? 30_000),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
    },
  });
}

/**
 * The data source, connected; a server that cannot be reached is named in the error (its host and
 * port, never the URL's credentials), so a start that fails says which server and why.
 */
async function connected(url: string, dataSource: DataSource): Promise<DataSource> {
  try {
    return await dataSource.initialize();
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    const { hostname, port } = new URL(url);
    throw new Error(`PostgreSQL at ${hostname}:${port || 5432} (DATABASE_URL) cannot be reached: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Creates the schema and applies pending migrations while holding an advisory lock, so several
 * instances starting together apply each migration exactly once.
 */
export async function migrate(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await takeMigrationLock(runner, schema);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}

/** How often an instance that finds the migrations being applied by another asks for the lock again. */
const MIGRATION_LOCK_POLL_MS = 200;

/**
 * Takes the schema's migration lock, asking again until it is free rather than waiting in one
 * statement: a statement waiting for the lock holds a snapshot, and CREATE INDEX CONCURRENTLY in the
 * migrations being applied waits for every older snapshot to go, so the two would wait for each other.
 */
async function takeMigrationLock(runner: QueryRunner, schema: string): Promise<void> {
  for (;;) {
    const rows: Array<{ locked: boolean }> = await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`migrations:${schema}`]);
    if (rows[0]?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_POLL_MS));
  }
}

/** A service's own schema and the migrations that make it. */
export interface ServiceMigrations {
  service: string;
  schema: string;
  migrations: Array<new () => MigrationInterface>;
}

/**
 * Applies a service's pending migrations and returns, under the same advisory lock the service takes
 * at start-up, so either order is safe: a deployment runs this before the new version starts
 * (deploy/kubernetes: the migrations Job) only to take the step out of the rollout.
 */
export async function migrateAlone(url: string, { service, schema, migrations }: ServiceMigrations, connectTimeoutMs?: number): Promise<void> {
  // Two connections: one holds the advisory lock while the other applies the migrations, which may
  // rightly take minutes (no statement timeout).
  const dataSource = await connected(url, createDataSource({ url, schema, migrations, poolSize: 2, applicationName: `${service}-migrate`, connectTimeoutMs, queryTimeoutMs: 0 }));
  try {
    await migrate(dataSource, schema);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * One way for every service to reach its database: a TypeORM DataSource on a migrated schema. The
 * migrations run first, on connections of their own without the statement timeout.
 */
@Module({})
export class DatabaseModule {
  /** A service's database as its configuration sets it (DATABASE_*). */
  static forService(config: DatabaseSettings, { service, schema, migrations }: ServiceMigrations): DynamicModule {
    return DatabaseModule.forRoot(() => ({
      url: databaseUrl(config),
      schema,
      migrations,
      poolSize: config.DATABASE_POOL_SIZE,
      connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
      queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
      applicationName: service,
    }));
  }

  static forRoot(options: () => DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          // A server still starting is waited for (ten tries, 3 s apart); a refused login, a missing
          // database or a certificate that cannot be trusted stops the start at once, saying why.
          useFactory: () => ({ toRetry: (error: unknown) => isDatabaseUnavailable(error) && !isUntrustedDatabase(error) }),
          dataSourceFactory: async () => {
            const resolved = options();
            const { url, schema, migrations, applicationName } = resolved;
            await migrateAlone(url, { service: applicationName, schema, migrations }, resolved.connectTimeoutMs);
            return connected(url, createDataSource(resolved));
          },
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
