import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { counter, observeGauges } from '../metrics/metrics.js';
import { RepeatingTask } from '../process/repeating-task.js';
import { PruneBudget, RetentionPolicy } from './retention-policy.js';

/**
 * Rows of one table that are kept for a while and then deleted: a log that grows with traffic. Every
 * part is SQL written in the code (never input). `time` is what a row's age is read from; an index
 * on it, whose predicate `where` implies, finds the oldest rows first, so a batch reads only what it
 * deletes and a run with nothing to do costs one index probe.
 */
export interface RetentionClass {
  /** Its name in metrics and logs (`delivery-log`). */
  name: string;
  /** The schema-qualified table. */
  table: string;
  /** The column (or expression) a row's age is read from. */
  time: string;
  /** What else a row must be to go (e.g. finished); rows with work still to do never match. */
  where?: string;
  /** How long a row is kept after `time`. */
  keepMs: number;
}

export interface RetentionOptions {
  classes: RetentionClass[];
  /** How often each instance prunes (RETENTION_INTERVAL_MS). */
  intervalMs: number;
  /** Rows one statement deletes at most (RETENTION_BATCH_ROWS). */
  batchRows: number;
  /** How long one run may go on batching one class (RETENTION_RUN_MS). */
  runMs: number;
  /** The clock the policies read; Date.now but in tests. */
  now?: () => number;
}

export const RETENTION_OPTIONS = Symbol('RETENTION_OPTIONS');

/** A batch waits this long at most for a table lock (only DDL conflicts), rather than queueing traffic behind it. */
const LOCK_TIMEOUT_MS = 1_000;
/** A batch runs this long at most in the database: a statement that has to read far more than it deletes is cut off. */
const STATEMENT_TIMEOUT_MS = 30_000;

const CLASS_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * Deletes what each class's policy is past, in small batches of the oldest rows first. A batch locks
 * the rows it takes with `FOR UPDATE SKIP LOCKED`: rows another writer (a redelivery, a retry) holds
 * are left for a later run, and two instances pruning at once take different rows, never wait for
 * each other and never delete a row twice. A row changed since the statement began is judged again as
 * it is now (READ COMMITTED's re-check under the row lock), so a delivery redelivered at that moment
 * is pending again and stays. Every instance runs the pruner; nothing elects one.
 */
@Injectable()
export class Pruner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Pruner');
  private readonly pruned = counter('retention_pruned_rows_total', 'Rows deleted by the retention policies, by class (this instance).', ['class']);
  private readonly now: () => number;
  private readonly task = new RepeatingTask(
    () => this.pruneOnce().then(() => undefined),
    (error) => this.logger.warn(`retention run failed: ${error.message}`),
  );
  private stopObserving?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(RETENTION_OPTIONS) private readonly options: RetentionOptions,
  ) {
    this.now = options.now ?? Date.now;
    for (const retention of options.classes) {
      if (!CLASS_NAME.test(retention.name)) throw new Error(`retention class name ${retention.name} is not a metric label`);
      new RetentionPolicy(retention.keepMs); // refuses a period that is not positive, at the start
    }
  }

  onApplicationBootstrap(): void {
    this.stopObserving = this.observe();
    this.task.start(this.options.intervalMs);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopObserving?.();
    await this.task.stop();
  }

  /** One run over every class (the run in progress, if one is); rows deleted by class. */
  async pruneOnce(): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    for (const retention of this.options.classes) {
      try {
        deleted[retention.name] = await this.pruneClass(retention);
      } catch (error) {
        // One class that cannot be pruned now (a lock timeout behind DDL) leaves the others to go on.
        this.logger.warn(`retention of ${retention.name} failed: ${(error as Error).message}`);
        deleted[retention.name] = 0;
      }
    }
    return deleted;
  }

  /** Batches of one class until nothing more is past its policy or the run's time is used. */
  async pruneClass(retention: RetentionClass): Promise<number> {
    const cutoff = new RetentionPolicy(retention.keepMs, this.now).cutoff();
    const budget = new PruneBudget(this.options.runMs, this.now);
    let total = 0;
    let deleted: number;
    do {
      deleted = await this.pruneBatch(retention, cutoff, this.options.batchRows);
      total += deleted;
      if (deleted > 0) this.pruned.inc({ class: retention.name }, deleted);
    } while (budget.another(deleted, this.options.batchRows));
    return total;
  }

  /** Deletes up to `limit` rows of the class older than `cutoff`, oldest first; returns how many. */
  async pruneBatch(retention: RetentionClass, cutoff: Date, limit: number): Promise<number> {
    return this.dataSource.transaction('READ COMMITTED', async (manager) => {
      await manager.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT_MS}ms'; SET LOCAL statement_timeout = '${STATEMENT_TIMEOUT_MS}ms'`);
      const rows: Array<{ deleted: number }> = await manager.query(batchSql(retention), [cutoff, limit]);
      return rows[0].deleted;
    });
  }

  /** Each class's rows (the planner's estimate) and the age of its oldest row, read at scrape time. */
  private observe(): () => void {
    const classes = this.options.classes;
    return observeGauges(
      [
        { name: 'retention_table_rows', help: "Rows in a retention class's table (PostgreSQL's estimate, pg_class.reltuples).", labelNames: ['class'] },
        {
          name: 'retention_oldest_age_seconds',
          help: 'Age of the oldest row of a retention class (0 when it has none): about its keep period while pruning works, rising when it has stopped.',
          labelNames: ['class'],
        },
        { name: 'retention_keep_seconds', help: 'How long a retention class keeps its rows (its setting).', labelNames: ['class'] },
      ],
      async (set) => {
        for (const retention of classes) set('retention_keep_seconds', { class: retention.name }, retention.keepMs / 1000);
        const rows: Array<{ name: string; rows: number; age: number }> = await this.dataSource.query(observeSql(classes));
        for (const row of rows) {
          set('retention_table_rows', { class: row.name }, row.rows);
          set('retention_oldest_age_seconds', { class: row.name }, row.age);
        }
      },
    );
  }
}

function condition(retention: RetentionClass): string {
  return retention.where ? ` AND (${retention.where})` : '';
}

/**
 * One batch: the oldest rows past the cut-off ($1), at most $2, locked as they are found (skipping
 * rows another transaction holds), then deleted by their physical address in the same statement.
 */
export function batchSql(retention: RetentionClass): string {
  return `WITH gone AS (
      DELETE FROM ${retention.table} WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM ${retention.table}
        WHERE ${retention.time} < $1${condition(retention)}
        ORDER BY ${retention.time} LIMIT $2
        FOR UPDATE SKIP LOCKED))
      RETURNING 1
    ) SELECT count(*)::int AS deleted FROM gone`;
}

/** Every class's row estimate and oldest age in one statement: each age is one probe of the class's index. */
function observeSql(classes: RetentionClass[]): string {
  return classes
    .map(
      (retention) => `SELECT '${retention.name}' AS name,
        COALESCE((SELECT GREATEST(reltuples, 0) FROM pg_class WHERE oid = to_regclass('${retention.table}')), 0)::float8 AS rows,
        COALESCE((SELECT EXTRACT(EPOCH FROM now() - ${retention.time}) FROM ${retention.table}
                  WHERE ${retention.time} IS NOT NULL${condition(retention)} ORDER BY ${retention.time} LIMIT 1), 0)::float8 AS age`,
    )
    .join('\nUNION ALL\n');
}
