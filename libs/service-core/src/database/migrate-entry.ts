import pino from 'pino';
import { loadConfig } from '../config/load-config.js';
import { ServiceConfig } from '../config/service.config.js';
import { databaseUrl, migrateAlone, type ServiceMigrations } from './database.module.js';

/**
 * A service's `migrate.js` entry (`node dist/apps/<service>/src/migrate.js`): reads DATABASE_URL,
 * DATABASE_CA_FILE and LOG_LEVEL only, so it needs no other secret, applies the migrations and exits
 * non-zero on failure.
 */
export async function runMigrateEntry(set: ServiceMigrations): Promise<void> {
  const logger = pino({ name: `${set.service}-migrate` });
  try {
    const config = loadConfig(ServiceConfig, { DATABASE_URL: process.env.DATABASE_URL, DATABASE_CA_FILE: process.env.DATABASE_CA_FILE, LOG_LEVEL: process.env.LOG_LEVEL });
    logger.level = config.LOG_LEVEL;
    await migrateAlone(databaseUrl(config), set);
    logger.info({ schema: set.schema, migrations: set.migrations.length }, 'schema is up to date');
  } catch (error) {
    logger.fatal({ err: error }, 'migrations failed');
    process.exitCode = 1;
  }
}
