import { type DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';

// bigint ids (bigserial) come back as numbers: they stay far below 2^53 and the spec types them integer.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export interface DatabaseOptions {
  url: string;
  /** The service's own Postgres schema; no other service reads it. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  poolSize: number;
  applicationName: string;
}

export function createDataSource(options: DatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: { max: options.poolSize, application_name: options.applicationName },
  });
}

/**
 * Creates the schema and applies pending migrations while holding an advisory lock, so several
 * instances starting together apply each migration exactly once.
 */
export async function migrate(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrations:${schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}

/** One way for every service to reach its database: a migrated TypeORM DataSource. */
@Module({})
export class DatabaseModule {
  static forRoot(options: () => DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({}),
          dataSourceFactory: async () => {
            const resolved = options();
            const dataSource = await createDataSource(resolved).initialize();
            await migrate(dataSource, resolved.schema);
            return dataSource;
          },
        }),
      ],
      exports: [TypeOrmModule],
    };
  }
}
