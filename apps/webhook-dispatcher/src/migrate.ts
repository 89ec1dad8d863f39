import 'reflect-metadata';
import { runMigrateEntry, type ServiceMigrations } from '@availability/service-core';
import { DISPATCHER_MIGRATIONS } from './migrations/index.js';
import { DISPATCHER_SCHEMA } from './delivery/deliveries.repository.js';

/** webhook-dispatcher's schema and its migrations, for `node dist/apps/webhook-dispatcher/src/migrate.js` (a deployment's migrations Job). */
export const SERVICE_MIGRATIONS: ServiceMigrations = { service: 'webhook-dispatcher', schema: DISPATCHER_SCHEMA, migrations: DISPATCHER_MIGRATIONS };

// Started directly (not imported by a test).
if (import.meta.url === `file://${process.argv[1]}`) await runMigrateEntry(SERVICE_MIGRATIONS);
