import pino from 'pino';
import type { MigrationInterface } from 'typeorm';
import { loadConfig } from '../config/load-config.js';
import { ServiceConfig } from '../config/service.config.js';
import { createDataSource, migrate } from './database.module.js';

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
export async function migrateAlone(databaseUrl: string, { service, schema, migrations }: ServiceMigrations): Promise<void> {
  // Two connections: one holds the advisory lock while the other applies the migrations.
  const dataSource = await createDataSource({ url: databaseUrl, schema, migrations, poolSize: 2, applicationName: `${service}-migrate` }).initialize();
  try {
    await migrate(dataSource, schema);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * A service's `migrate.js` entry (`node dist/apps/<service>/src/migrate.js`): reads DATABASE_URL and
 * LOG_LEVEL only, so it needs no other secret, applies the migrations and exits non-zero on failure.
 */
export async function runMigrateEntry(set: ServiceMigrations): Promise<void> {
  const logger = pino({ name: `${set.service}-migrate` });
  try {
    const config = loadConfig(ServiceConfig, { DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL });
    logger.level = config.LOG_LEVEL;
    await migrateAlone(config.DATABASE_URL, set);
    logger.info({ schema: set.schema, migrations: set.migrations.length }, 'schema is up to date');
  } catch (error) {
    logger.fatal({ err: error }, 'migrations failed');
    process.exitCode = 1;
  }
}
