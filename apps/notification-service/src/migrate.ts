import 'reflect-metadata';
import { runMigrateEntry, type ServiceMigrations } from '@availability/service-core';
import { NOTIFICATIONS_MIGRATIONS } from './migrations/index.js';
import { NOTIFICATIONS_SCHEMA } from './devices/devices.repository.js';

/** notification-service's schema and its migrations, for `node dist/apps/notification-service/src/migrate.js` (a deployment's migrations Job). */
export const SERVICE_MIGRATIONS: ServiceMigrations = { service: 'notification-service', schema: NOTIFICATIONS_SCHEMA, migrations: NOTIFICATIONS_MIGRATIONS };

// Started directly (not imported by a test).
if (import.meta.url === `file://${process.argv[1]}`) await runMigrateEntry(SERVICE_MIGRATIONS);
