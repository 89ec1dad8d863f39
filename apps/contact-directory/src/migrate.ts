import 'reflect-metadata';
import { runMigrateEntry, type ServiceMigrations } from '@availability/service-core';
import { DIRECTORY_MIGRATIONS } from './migrations/index.js';
import { DIRECTORY_SCHEMA } from './directory/directory.repository.js';

/** contact-directory's schema and its migrations, for `node dist/apps/contact-directory/src/migrate.js` (a deployment's migrations Job). */
export const SERVICE_MIGRATIONS: ServiceMigrations = { service: 'contact-directory', schema: DIRECTORY_SCHEMA, migrations: DIRECTORY_MIGRATIONS };

// Started directly (not imported by a test).
if (import.meta.url === `file://${process.argv[1]}`) await runMigrateEntry(SERVICE_MIGRATIONS);
