import type pg from 'pg';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * A statement PostgreSQL parses and plans once per connection and then only executes. Worth it on
 * hot paths: planning is a large share of a short query's cost. Names must be unique per text.
 *
 * Only for statements that find rows by key or only insert: the plan kept is often made when the
 * service starts, on tables still empty, and stays until the tables are analysed again; a join of a
 * batch to a table planned then reads the whole table at every run. Such statements are planned at
 * each run instead. Each service's prepared statements are planned on empty tables in its tests
 * (`statementsReadingTablesWhole`).
 */
export interface PreparedStatement {
  name: string;
  text: string;
}

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/** The connection pool under a DataSource, for work that needs one connection of its own (see OutboxRelay). */
export function connectionPool(dataSource: DataSource): pg.Pool {
  return (dataSource.driver as unknown as { master: pg.Pool }).master;
}

function connectionOf(target: DataSource | EntityManager): Queryable {
  const runner = (target as EntityManager).queryRunner;
  // Inside a transaction: the transaction's own client; otherwise the pool.
  if (runner) {
    const client = (runner as unknown as { databaseConnection?: Queryable }).databaseConnection;
    if (!client) throw new Error('the transaction has no connection yet');
    return client;
  }
  const dataSource = ((target as EntityManager).connection ?? target) as DataSource;
  return connectionPool(dataSource);
}

/** Runs a prepared statement on the pool, or on the transaction's connection when given its manager. */
export async function runPrepared<T extends pg.QueryResultRow = pg.QueryResultRow>(
  target: DataSource | EntityManager,
  statement: PreparedStatement,
  values: unknown[],
): Promise<T[]> {
  const result = await connectionOf(target).query<T>({ name: statement.name, text: statement.text, values });
  return result.rows;
}
