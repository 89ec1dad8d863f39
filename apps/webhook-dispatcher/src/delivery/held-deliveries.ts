import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { counter, TtlCache } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { holdWithJitter } from '../domain/backoff.js';
import { MicroBatcher } from '../domain/micro-batcher.js';
import { DeliveriesRepository, type HeldRow } from './deliveries.repository.js';
import { DeliveryQueue } from './delivery-queue.js';

/** How often each process makes sure every endpoint with held deliveries has its trial job. */
const SWEEP_MS = 60_000;
/** Held deliveries queued again per statement when their endpoint answers. */
const RELEASE_BATCH = 500;

interface Hold {
  deliveryId: number;
  series: number;
  organisationId: string;
  /** When the endpoint's trial call is due, from now. */
  trialInMs: number;
}

/**
 * Deliveries held back while their endpoint's circuit is open. They wait in the delivery log (Postgres),
 * not as jobs in Redis: an endpoint down for hours with thousands of events a minute then costs one row
 * per event, instead of jobs fetched and put back every cool-down — work that would grow with the
 * backlog and take the dispatcher from healthy endpoints, and memory Redis would run out of.
 *
 * One trial job per endpoint (deterministic job id) calls it again, with the held delivery due first;
 * when that call succeeds every held delivery goes back to the queue with the attempts it has left.
 * Each process sweeps now and then, so an endpoint whose trial job was lost gets a new one.
 */
@Injectable()
export class HeldDeliveries implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('HeldDeliveries');
  private readonly holds = new MicroBatcher<Hold, void>((items) => this.write(items), 500);
  private readonly transitions = counter(
    'webhook_held_deliveries_total',
    'Deliveries held back while their endpoint’s circuit was open (held), and queued again when it answered (released).',
    ['action'],
  );
  private sweeper?: NodeJS.Timeout;
  /**
   * Endpoints whose trial job this process scheduled, until it is due: an endpoint getting events
   * every few milliseconds then costs no Redis call per event. Should the trial have run meanwhile
   * (and found nothing held yet), the sweep schedules another.
   */
  private readonly scheduled = new TtlCache<string, true>(100_000);

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly queue: DeliveryQueue,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS).unref();
    setTimeout(() => void this.sweep(), 1_000).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweeper);
    await this.holds.drain();
  }

  /** Holds a delivery whose job is running; resolves once the hold is written (the job may then end). */
  hold(delivery: Hold): Promise<void> {
    return this.holds.add(delivery);
  }

  /**
   * For deliveries the intake wrote held (their endpoint's circuit was open): makes sure their endpoints
   * have trial jobs. `trialInMs` is when each endpoint's trial is due.
   */
  async heldAtIntake(deliveries: Array<{ organisationId: string; trialInMs: number }>): Promise<void> {
    if (deliveries.length === 0) return;
    await this.scheduleTrials(deliveries);
    this.transitions.inc({ action: 'held' }, deliveries.length);
  }

  /** The held delivery of an endpoint to try next. */
  next(organisationId: string) {
    return this.repository.nextHeld(organisationId);
  }

  /** The endpoint answered: every held delivery goes back to the queue. */
  async release(organisationId: string): Promise<number> {
    let released = 0;
    for (;;) {
      const count = await this.repository.releaseHeld(organisationId, RELEASE_BATCH, (rows: HeldRow[]) =>
        this.queue.enqueue(rows.map((row) => DeliveryQueue.jobFor(row))),
      );
      released += count;
      if (count < RELEASE_BATCH) break;
    }
    if (released > 0) {
      this.transitions.inc({ action: 'released' }, released);
      this.logger.log(`released ${released} held deliveries of organisation ${organisationId}`);
    }
    return released;
  }

  /** When an endpoint's next trial call is due after one that failed. */
  trialDelayMs(): number {
    return holdWithJitter(this.config.WEBHOOK_BREAKER_COOLDOWN_MS);
  }

  private async write(items: Hold[]): Promise<void[]> {
    await this.repository.hold(items);
    await this.scheduleTrials(items);
    this.transitions.inc({ action: 'held' }, items.length);
    return items.map(() => undefined);
  }

  private async scheduleTrials(deliveries: Array<{ organisationId: string; trialInMs: number }>): Promise<void> {
    const trials = earliestTrials(deliveries.filter((d) => !this.scheduled.get(d.organisationId)));
    if (trials.length === 0) return;
    await this.queue.scheduleTrials(trials);
    for (const { organisationId, delayMs } of trials) this.scheduled.set(organisationId, true, delayMs);
  }

  private async sweep(): Promise<void> {
    try {
      const organisationIds = await this.repository.heldOrganisations();
      await this.queue.scheduleTrials(organisationIds.map((organisationId) => ({ organisationId, delayMs: this.trialDelayMs() })));
    } catch (error) {
      this.logger.warn(`sweep of held deliveries failed: ${(error as Error).message}`);
    }
  }
}

/** One trial per endpoint, at the earliest time asked for. */
function earliestTrials(deliveries: Array<{ organisationId: string; trialInMs: number }>): Array<{ organisationId: string; delayMs: number }> {
  const earliest = new Map<string, number>();
  for (const { organisationId, trialInMs } of deliveries) earliest.set(organisationId, Math.min(earliest.get(organisationId) ?? Infinity, trialInMs));
  return [...earliest].map(([organisationId, delayMs]) => ({ organisationId, delayMs }));
}
