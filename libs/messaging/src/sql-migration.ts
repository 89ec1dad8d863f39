import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A migration a library defines for each service that uses it (the outbox, parked events): named
 * `<prefix><timestamp>`, the timestamp ordering it among the service's own migrations.
 */
export function sqlMigration(prefix: string, timestamp: number, up: string[], down: string[]): new () => MigrationInterface {
  const name = `${prefix}${timestamp}`;
  const migration = class implements MigrationInterface {
    name = name;

    async up(runner: QueryRunner): Promise<void> {
      for (const statement of up) await runner.query(statement);
    }

    async down(runner: QueryRunner): Promise<void> {
      for (const statement of down) await runner.query(statement);
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
}
