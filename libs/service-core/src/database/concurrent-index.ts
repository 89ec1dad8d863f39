import type { MigrationInterface, QueryRunner } from 'typeorm';

/** An index a migration builds without blocking writes. */
export interface ConcurrentIndex {
  /** The schema it lives in (the service's own). */
  schema: string;
  name: string;
  /** What follows `ON`: the table, its columns or expression, and any predicate. */
  on: string;
}

/**
 * A migration that builds indexes with CREATE INDEX CONCURRENTLY, outside a transaction (TypeORM runs
 * a migration whose `transaction` is false on its own, with migrationsTransactionMode `each`), so a
 * table that already holds months of rows keeps taking writes while it builds. A build cut off
 * (a crash, a cancelled statement) leaves an invalid index behind: it is dropped and built again.
 */
export function concurrentIndexMigration(prefix: string, timestamp: number, indexes: ConcurrentIndex[]): new () => MigrationInterface {
  const name = `${prefix}${timestamp}`;
  const migration = class implements MigrationInterface {
    name = name;
    transaction = false;

    async up(runner: QueryRunner): Promise<void> {
      for (const index of indexes) {
        const qualified = `"${index.schema}"."${index.name}"`;
        const found: Array<{ valid: boolean }> = await runner.query(`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)`, [qualified]);
        if (found[0]?.valid === false) await runner.query(`DROP INDEX CONCURRENTLY ${qualified}`);
        await runner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${index.name}" ON ${index.on}`);
      }
    }

    async down(runner: QueryRunner): Promise<void> {
      for (const index of [...indexes].reverse()) await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${index.schema}"."${index.name}"`);
    }
  };
  Object.defineProperty(migration, 'name', { value: name });
  return migration;
}
