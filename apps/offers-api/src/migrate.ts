import 'reflect-metadata';
import { runMigrateEntry, type ServiceMigrations } from '@availability/service-core';
import { OFFERS_MIGRATIONS } from './migrations/index.js';
import { OFFERS_SCHEMA } from './offers/offers.repository.js';

/** offers-api's schema and its migrations, for `node dist/apps/offers-api/src/migrate.js` (a deployment's migrations Job). */
export const SERVICE_MIGRATIONS: ServiceMigrations = { service: 'offers-api', schema: OFFERS_SCHEMA, migrations: OFFERS_MIGRATIONS };

// Started directly (not imported by a test).
if (import.meta.url === `file://${process.argv[1]}`) await runMigrateEntry(SERVICE_MIGRATIONS);
