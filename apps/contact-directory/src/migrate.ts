import 'reflect-metadata';
import pino from 'pino';
import { createDataSource, loadConfig, migrate, ServiceConfig } from '@availability/service-core';
import { DIRECTORY_SCHEMA } from './directory/directory.repository.js';
import { DIRECTORY_MIGRATIONS } from './migrations/index.js';

/**
 * Applies contact-directory's pending migrations, then exits: `node dist/apps/contact-directory/src/migrate.js`, run by a
 * deployment before the new version starts (deploy/kubernetes: the migrations Job). The service
 * still applies them at start-up under the same advisory lock, so either order is safe; this only
 * takes the step out of the rollout. Reads DATABASE_URL and LOG_LEVEL only, so it needs no other secret.
 */
export async function migrateContactDirectory(databaseUrl: string): Promise<void> {
  // Two connections: one holds the advisory lock while the other applies the migrations.
  const dataSource = await createDataSource({ url: databaseUrl, schema: DIRECTORY_SCHEMA, migrations: DIRECTORY_MIGRATIONS, poolSize: 2, applicationName: 'contact-directory-migrate' }).initialize();
  try {
    await migrate(dataSource, DIRECTORY_SCHEMA);
  } finally {
    await dataSource.destroy();
  }
}

// Started directly (not imported by a test).
if (import.meta.url === `file://${process.argv[1]}`) {
  const logger = pino({ name: 'contact-directory-migrate' });
  try {
    const config = loadConfig(ServiceConfig, { DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: process.env.LOG_LEVEL });
    logger.level = config.LOG_LEVEL;
    await migrateContactDirectory(config.DATABASE_URL);
    logger.info({ schema: DIRECTORY_SCHEMA, migrations: DIRECTORY_MIGRATIONS.length }, 'schema is up to date');
  } catch (error) {
    logger.fatal({ err: error }, 'migrations failed');
    process.exitCode = 1;
  }
}
