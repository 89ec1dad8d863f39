import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { connectionPool, createDataSource } from '@availability/service-core';
import { DatabaseProxy } from './database-proxy.js';
import { eventually } from './service-process.js';
import { createTestDatabase, queryDatabase, type TestDatabase } from './test-database.js';

/**
 * The services' database pool (service-core's createDataSource) through a partition. A statement
 * that timed out leaves its connection in a state nobody knows: the statement may still reach the
 * server (a partition holds it, then delivers it late), and a rollback queued behind it was dropped
 * with its own timeout. Such a connection must never serve another statement.
 */
let database: TestDatabase;
let proxy: DatabaseProxy;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  await queryDatabase(database.url, 'CREATE TABLE note (id int PRIMARY KEY)');
  proxy = await DatabaseProxy.start(database.url);
  // One connection, so the statement after the partition meets the connection that lived through it.
  dataSource = await createDataSource({ url: proxy.urlFor(database.url), schema: 'public', migrations: [], poolSize: 1, applicationName: 'partition-spec', connectTimeoutMs: 1_000, queryTimeoutMs: 500 }).initialize();
});

afterAll(async () => {
  await dataSource?.destroy();
  await proxy?.stop();
  await database?.drop();
});

const committedIds = async () => (await queryDatabase<{ id: number }>(database.url, 'SELECT id FROM note ORDER BY id')).map((row) => row.id);

describe('a connection whose statement timed out', () => {
  it('is not given out again: a write after the partition heals is committed, and the one that timed out is not', async () => {
    proxy.partition();
    try {
      await expect(dataSource.transaction((manager) => manager.query('INSERT INTO note VALUES (1)'))).rejects.toThrow(/Query read timeout|Connection terminated/);
    } finally {
      proxy.heal();
    }
    await eventually(async () => dataSource.query('INSERT INTO note VALUES (2)').then(() => true, () => false), 10_000, 'a write accepted after the partition');
    expect(await committedIds()).toEqual([2]);
    const [open] = await queryDatabase<{ n: number }>(database.url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'partition-spec' AND state LIKE 'idle in transaction%'");
    expect(open.n).toBe(0);
  });

  it('held outside TypeORM between statements (as the outbox relay holds one while it publishes) is lost with the server, not the process', async () => {
    const client = await connectionPool(dataSource).connect();
    await proxy.goDown();
    try {
      // Dropped while no statement was running: the next one is told, and nothing else happens.
      const failure = await eventually(async () => client.query('SELECT 1').then(() => undefined, (error: Error) => error), 10_000, 'the connection known lost');
      expect(failure.message).toMatch(/not queryable|Connection terminated/);
      client.release(failure);
    } finally {
      await proxy.comeBack();
    }
    await eventually(async () => dataSource.query('SELECT 1').then(() => true, () => false), 10_000, 'the pool serving after the restart');
  });
});
