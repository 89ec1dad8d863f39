import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { counter, MicroBatcher, TtlCache } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { holdWithJitter } from '../domain/backoff.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { deliveryOf } from './delivery.js';
import { RetryQueue } from './retry-queue.js';

/** Held deliveries queued again per statement when their endpoint answers. */
const RELEASE_BATCH = 500;

interface TrialRequest {
  organisationId: string;
  /** When the endpoint's trial call is due, from now. */
  trialInMs: number;
}

interface Hold extends TrialRequest {
  deliveryId: number;
  series: number;
}

/**
 * Deliveries held back while their endpoint's circuit is open. They wait in the delivery log (PostgreSQL),
 * not as jobs in Redis: an endpoint down for hours with thousands of events a minute then costs one row
 * per event, instead of jobs fetched and put back every cool-down — work that would grow with the
 * backlog and take the dispatcher from healthy endpoints, and memory Redis would run out of.
 *
 * One trial job per endpoint (deterministic job id) calls it again, with the held delivery due first;
 * when that call succeeds every held delivery goes back to the queue with the attempts it has left.
 */
@Injectable()
export class HeldDeliveries implements OnModuleDestroy {
  private readonly logger = new Logger('HeldDeliveries');
  private readonly holds = new MicroBatcher<Hold, void>(async (items) => {
    await this.repository.hold(items);
    return this.followHolds(items);
  }, 500);
  /** Deliveries written held from the start: a burst's come back together, and share one look at their trials. */
  private readonly heldFromStartBatch = new MicroBatcher<TrialRequest, void>((items) => this.followHolds(items), 500);
  private readonly transitions = counter(
    'webhook_held_deliveries_total',
    'Deliveries held back while their endpoint’s circuit was open (held), and queued again when it answered (released).',
    ['action'],
  );
  /**
   * Endpoints whose trial job this process scheduled, until it is due: an endpoint getting events
   * every few milliseconds then costs no Redis call per event. Should the trial have run meanwhile
   * (and found nothing held yet), the recovery sweep schedules another.
   */
  private readonly scheduled = new TtlCache<string, true>(100_000);

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly retries: RetryQueue,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.holds.drain(), this.heldFromStartBatch.drain()]);
  }

  /** Holds a delivery; resolves once the hold is written and its endpoint has a trial job. */
  hold(delivery: Hold): Promise<void> {
    return this.holds.add(delivery);
  }

  /** A delivery written held from the start (DeliveryRecorder.heldDelivery): resolves once its endpoint has a trial job. */
  heldFromStart(organisationId: string, trialInMs: number): Promise<void> {
    return this.heldFromStartBatch.add({ organisationId, trialInMs });
  }

  /** The held delivery of an endpoint to try next. */
  next(organisationId: string) {
    return this.repository.nextHeld(organisationId);
  }

  /**
   * The endpoint answered: every held delivery goes back to the queue. Each batch's jobs are queued
   * before its hold ends, so a crash in between leaves them held (the next release queues them again,
   * under the same job ids); concurrent releases queue the same jobs, which Redis keeps once. Two
   * races would leave a delivery neither held nor queued, and are closed:
   * - the job that held the delivery may still be finishing: a released job is named by its hold
   *   (jobIdFor), so it is not dropped as a repeat of that job;
   * - a released job may run before the hold ends, meet a circuit still open (in its process) and hold
   *   its delivery again: only the holds read here are ended (`endHold`), so the newer one stays.
   */
  async release(organisationId: string): Promise<number> {
    let released = 0;
    for (;;) {
      const rows = await this.repository.heldBatch(organisationId, RELEASE_BATCH);
      if (rows.length === 0) break;
      await this.retries.scheduleAll(rows.map((row) => ({ delivery: deliveryOf(row), attemptNo: row.attemptsInSeries + 1, heldSince: row.heldSince })));
      await this.repository.endHold(rows);
      released += rows.length;
      if (rows.length < RELEASE_BATCH) break;
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

  /** Makes sure every endpoint with held deliveries has a trial job (the recovery sweep's part). */
  async ensureTrials(): Promise<void> {
    const organisationIds = await this.repository.heldOrganisations();
    await this.retries.scheduleTrials(organisationIds.map((organisationId) => ({ organisationId, delayMs: this.trialDelayMs() })));
  }

  /** What follows written holds: a trial job for each endpoint, unless this process scheduled one that is not yet due. */
  private async followHolds(holds: TrialRequest[]): Promise<void[]> {
    const trials = earliestTrials(holds.filter((hold) => !this.scheduled.get(hold.organisationId)));
    if (trials.length > 0) {
      await this.retries.scheduleTrials(trials);
      for (const { organisationId, delayMs } of trials) this.scheduled.set(organisationId, true, delayMs);
    }
    this.transitions.inc({ action: 'held' }, holds.length);
    return holds.map(() => undefined);
  }
}

/** One trial per endpoint, at the earliest time asked for. */
function earliestTrials(deliveries: TrialRequest[]): Array<{ organisationId: string; delayMs: number }> {
  const earliest = new Map<string, number>();
  for (const { organisationId, trialInMs } of deliveries) earliest.set(organisationId, Math.min(earliest.get(organisationId) ?? Infinity, trialInMs));
  return [...earliest].map(([organisationId, delayMs]) => ({ organisationId, delayMs }));
}
