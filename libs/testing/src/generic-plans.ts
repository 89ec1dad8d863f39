import pg from 'pg';
import { migrateAlone, type ServiceMigrations } from '@availability/service-core';
import { createTestDatabase } from './test-database.js';

/**
 * The tables a prepared statement's generic plan reads whole (sequential scans), planned as a service's
 * connection plans it at start-up: on tables still empty. PostgreSQL keeps such a plan for the
 * connection's life once it is no dearer than the first five custom ones, and replans only when the
 * tables are analysed again; a plan that reads a table whole because it was empty then reads it whole
 * at every execution however large the table has grown.
 */
export async function tablesScannedByGenericPlan(databaseUrl: string, statement: { name: string; text: string }): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE plan_probe AS ${statement.text}`);
    const [{ parameters }] = (
      await client.query<{ parameters: number }>(`SELECT cardinality(parameter_types) AS parameters FROM pg_prepared_statements WHERE name = 'plan_probe'`)
    ).rows;
    // A generic plan does not depend on the values: EXPLAIN without ANALYZE runs nothing.
    const nulls = Array.from({ length: parameters }, () => 'NULL').join(', ');
    const [row] = (await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON, VERBOSE) EXECUTE plan_probe${parameters ? `(${nulls})` : ''}`)).rows;
    return [...new Set(seqScans(row['QUERY PLAN'][0].Plan))].sort();
  } finally {
    await client.end();
  }
}

/**
 * The statements whose generic plans read tables whole (by name, with those tables), planned on a
 * fresh database with the service's migrations applied and nothing else (dropped afterwards).
 */
export async function statementsReadingTablesWhole(set: ServiceMigrations, statements: Array<{ name: string; text: string }>): Promise<Record<string, string[]>> {
  const database = await createTestDatabase();
  try {
    await migrateAlone(database.url, set);
    const found: Record<string, string[]> = {};
    for (const statement of statements) {
      const tables = await tablesScannedByGenericPlan(database.url, statement);
      if (tables.length > 0) found[statement.name] = tables;
    }
    return found;
  } finally {
    await database.drop();
  }
}

interface PlanNode {
  'Node Type': string;
  Schema?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function* seqScans(node: PlanNode): Generator<string> {
  if (node['Node Type'] === 'Seq Scan') yield `${node.Schema}.${node['Relation Name']}`;
  for (const child of node.Plans ?? []) yield* seqScans(child);
}

/**
 * The table and index pages a query reads (shared buffers hit or read) when it runs with `params`, as
 * a service's unnamed statement is planned: for its values. What tells a query that reads only its
 * page of rows from one that walks a table's history, whatever the machine's speed.
 */
export async function pagesRead(databaseUrl: string, sql: string, params: unknown[]): Promise<{ pages: number; seqScans: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const [row] = (await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode & { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }> }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params)).rows;
    const plan = row['QUERY PLAN'][0].Plan;
    return { pages: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], seqScans: [...new Set(seqScans(plan))].sort() };
  } finally {
    await client.end();
  }
}
