import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { counter, histogram, LATENCY_BUCKETS_SECONDS } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { AnswerOrder } from '../domain/answer-order.js';
import { holdWithJitter } from '../domain/backoff.js';
import { type Admission, EndpointGate, type GateReport } from '../domain/endpoint-gate.js';
import { type RetryPolicy, stepAfterAttempt } from '../domain/retry-policy.js';
import { type AttemptRecord, DeliveriesRepository, type DeliveryStatus, type NewDelivery } from './deliveries.repository.js';
import { callOf, type Delivery, type DeliveryCall, deliveryOf } from './delivery.js';
import { DeliveryRecorder } from './delivery-recorder.js';
import { HeldDeliveries } from './held-deliveries.js';
import { RetryQueue } from './retry-queue.js';
import { TargetResolver, type WebhookTarget } from './target-resolver.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * What became of a delivery handed to the deliverer: `done` when its outcome is recorded (and its next
 * attempt, if any, is safely queued, or it is held); `wait` when no attempt was made and the caller
 * should try again in `ms` (the endpoint was busy, or the directory did not answer).
 */
export type Delivered = { kind: 'done' } | { kind: 'wait'; ms: number };

/** Delay when the directory could not tell us where to call (our side, not the integrator's: no attempt used). */
const TARGET_UNKNOWN_WAIT_MS = 5_000;
/** An answer's sequence in its body: only an answer that carries one can be superseded. */
const ANSWER_SEQUENCE = /"sequence":(\d+)[,}]/;
/** Delay when another job is making the attempt: then the attempt is found made, or its claimant dead. */
const CLAIMED_WAIT_MS = 1_000;

/** An attempt's outcome, as `attempt` records it: the log's side is up to the caller (`record`). */
type AttemptOutcome = Omit<AttemptRecord, 'deliveryId' | 'series'>;

/**
 * The path of one attempt, wherever it starts (the event stream for a first attempt, a job for a
 * retry): where to call → the endpoint gate's admission → the signed call → the gate's report → one
 * decision about what follows (done, retry later, dead), recorded in the delivery log before the caller
 * acknowledges anything.
 */
@Injectable()
export class Deliverer implements OnModuleInit {
  private readonly logger = new Logger('Deliverer');
  private readonly retryPolicy: RetryPolicy;
  private readonly answerOrder = new AnswerOrder();
  private readonly outcomes = counter(
    'webhook_deliveries_total',
    'Webhook delivery attempts by outcome: succeeded, failed (will retry), dead (dead-lettered), skipped (no base URL), superseded (a newer answer from the worker was logged: not sent).',
    ['outcome'],
  );
  private readonly waits = counter(
    'webhook_jobs_put_back_total',
    'Deliveries put off without an attempt: endpoint-busy (its calls in flight at the limit, or stalled), target-unknown (the directory did not answer), attempt-claimed (another job is making it), attempt-made (another job made it: nothing left to do).',
    ['reason'],
  );
  private readonly callDurations = histogram('webhook_delivery_duration_seconds', 'Duration of calls to integrators.', [], LATENCY_BUCKETS_SECONDS);

  constructor(
    private readonly gate: EndpointGate,
    private readonly resolver: TargetResolver,
    private readonly sender: WebhookSender,
    private readonly repository: DeliveriesRepository,
    private readonly recorder: DeliveryRecorder,
    private readonly retries: RetryQueue,
    private readonly held: HeldDeliveries,
    private readonly config: WebhookDispatcherConfig,
  ) {
    this.retryPolicy = {
      schedule: { baseMs: config.WEBHOOK_BACKOFF_BASE_MS, factor: config.WEBHOOK_BACKOFF_FACTOR, capMs: config.WEBHOOK_BACKOFF_CAP_MS },
      maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      clientErrorMaxAttempts: config.WEBHOOK_CLIENT_ERROR_MAX_ATTEMPTS,
      retryAfterMaxMs: config.WEBHOOK_RETRY_AFTER_MAX_MS,
    };
  }

  onModuleInit(): void {
    // The integrator re-saved its endpoint (and passed /test and /test/auth): enabled again, and what was held for it goes now.
    this.resolver.onChanged((organisationId) => {
      this.enableEndpoint(organisationId).catch((error: Error) => this.logger.warn(`enable ${organisationId}: ${error.message}`));
    });
  }

  /**
   * An endpoint starts afresh: enabled, its failure streak and this process's breaker reset, and what
   * was held for it queued now. (Other processes' breakers close at their next trial call.)
   */
  async enableEndpoint(organisationId: string): Promise<void> {
    await this.gate.reset(organisationId);
    await this.held.release(organisationId);
  }

  /**
   * Attempt `attemptNo` (from 1 within its series) of a logged delivery, if its endpoint admits it now
   * and `claimant` (a job's id) gets the attempt's claim: made by another job already, or being made,
   * it is not made again.
   */
  async deliver(delivery: Delivery, attemptNo: number, claimant: string): Promise<Delivered> {
    const org = delivery.organisationId;
    const target = await this.target(org);
    if (!target) return { kind: 'wait', ms: TARGET_UNKNOWN_WAIT_MS };
    if (!target.baseUrl) {
      await this.settle(delivery, 'skipped', 'the organisation has no webhook base URL');
      return { kind: 'done' };
    }
    const admission = await this.gate.admit(org);
    if (admission.kind !== 'go') return this.keepBack(delivery, admission);
    const unclaimed = await this.claim(delivery, attemptNo, claimant);
    if (unclaimed) return unclaimed;
    const outcome = await this.attempt(delivery, attemptNo, { ...target, baseUrl: target.baseUrl }, this.loggedAttemptOf(delivery));
    await this.follow(org, outcome, attemptNo);
    return { kind: 'done' };
  }

  /**
   * The first attempt of a delivery nothing is logged for yet (an event seen for the first time,
   * EventIntake): the call comes first, and the delivery is written once, with its outcome. One its
   * endpoint holds back (circuit open) is written once too, held; one kept back otherwise is written
   * first, as what keeps it back (a job, a dead letter) refers to it.
   */
  async deliverFirst(row: NewDelivery, target: WebhookTarget & { baseUrl: string }): Promise<Delivered> {
    // An answer that came after a newer one from its worker is logged, and not sent.
    if (await this.superseded(row)) {
      await this.recorder.delivery({ ...row, status: 'superseded' });
      this.outcomes.inc({ outcome: 'superseded' });
      return { kind: 'done' };
    }
    const admission = await this.gate.admit(row.organisationId);
    if (admission.kind === 'hold') {
      // Written held in one statement; an event that had a delivery already leaves it to its own course.
      const logged = await this.recorder.heldDelivery(row);
      if (logged.inserted) await this.held.heldFromStart(row.organisationId, holdWithJitter(admission.trialInMs));
      return { kind: 'done' };
    }
    if (admission.kind !== 'go') {
      const logged = await this.recorder.delivery(row);
      // An event that had a delivery already (published again) leaves it to its own course.
      if (!logged.inserted || logged.id === null) return { kind: 'done' };
      const delivery = deliveryOf({ ...row, id: logged.id, series: logged.series });
      const kept = await this.keepBack(delivery, admission);
      if (kept.kind === 'wait') await this.retries.schedule(delivery, 1, kept.ms);
      return { kind: 'done' };
    }
    const outcome = await this.attempt(callOf(row), 1, target, async (record) => {
      const id = await this.recorder.firstAttempt({ ...record, delivery: row });
      return id === null ? null : deliveryOf({ ...row, id, series: 0 });
    });
    await this.follow(row.organisationId, outcome, 1);
    return { kind: 'done' };
  }

  /**
   * Whether an answer seen for the first time is older than one logged (AnswerOrder); the older answers
   * it finds failed or dead are superseded as it arrives.
   */
  private async superseded(row: NewDelivery): Promise<boolean> {
    const found = ANSWER_SEQUENCE.exec(row.body);
    if (!found) return false;
    const sequence = Number(found[1]);
    return this.answerOrder.verdict({ sequence, series: 0 }, await this.repository.answerArrived(row, sequence)) === 'supersede';
  }

  /** How an attempt of a delivery already in the log is logged. */
  private loggedAttemptOf(delivery: Delivery): (outcome: AttemptOutcome) => Promise<Delivery> {
    return async (outcome) => {
      await this.recorder.attempt({ ...outcome, deliveryId: delivery.deliveryId, series: delivery.series });
      return delivery;
    };
  }

  /** What an endpoint that did not admit a logged delivery means for it. */
  private async keepBack(delivery: Delivery, admission: Exclude<Admission, { kind: 'go' }>): Promise<Delivered> {
    switch (admission.kind) {
      case 'dead':
        await this.settle(delivery, 'dead', `endpoint disabled: ${admission.reason}`);
        return { kind: 'done' };
      case 'hold':
        await this.held.hold({ deliveryId: delivery.deliveryId, series: delivery.series, organisationId: delivery.organisationId, trialInMs: holdWithJitter(admission.trialInMs) });
        return { kind: 'done' };
      case 'wait':
        this.waits.inc({ reason: 'endpoint-busy' });
        return { kind: 'wait', ms: holdWithJitter(admission.ms) };
    }
  }

  /** What follows a logged attempt: its retry queued, and what was held for its endpoint released if it closed the circuit. */
  private async follow(organisationId: string, outcome: { delivery: Delivery | null; status: DeliveryStatus; retryInMs: number; closed: boolean }, attemptNo: number): Promise<void> {
    if (outcome.status === 'failed' && outcome.delivery) await this.retries.schedule(outcome.delivery, attemptNo + 1, outcome.retryInMs);
    if (outcome.closed) this.releaseHeld(organisationId);
  }

  /**
   * The trial call of an endpoint with held deliveries: the held delivery due first is attempted,
   * through the gate like any other; if it succeeds every held delivery is queued again, otherwise
   * the trial waits for the next cool-down (or until the next held delivery is due by its own retry
   * schedule, if that is later).
   */
  async trial(organisationId: string, claimant: string): Promise<Delivered> {
    const next = await this.held.next(organisationId);
    if (!next) return { kind: 'done' };
    const dueInMs = next.nextAttemptAt ? next.nextAttemptAt.getTime() - Date.now() : 0;
    if (dueInMs > 0) return { kind: 'wait', ms: dueInMs };
    const target = await this.target(organisationId);
    if (!target) return { kind: 'wait', ms: TARGET_UNKNOWN_WAIT_MS };
    if (!target.baseUrl) {
      // Nothing to call any more: the deliveries go back to the queue, whose jobs log them as skipped.
      await this.held.release(organisationId);
      return { kind: 'done' };
    }
    const admission = await this.gate.admit(organisationId, false);
    // Disabled: what was held was dead-lettered with it.
    if (admission.kind === 'dead') return { kind: 'done' };
    if (admission.kind === 'hold') return { kind: 'wait', ms: holdWithJitter(admission.trialInMs) };
    if (admission.kind === 'wait') return { kind: 'wait', ms: holdWithJitter(admission.ms) };
    const delivery = deliveryOf(next);
    // Released and being made by a job meanwhile: the trial looks again after a cool-down.
    if (await this.claim(delivery, next.attemptsInSeries + 1, claimant)) return { kind: 'wait', ms: this.held.trialDelayMs() };
    const outcome = await this.attempt(delivery, next.attemptsInSeries + 1, { ...target, baseUrl: target.baseUrl }, this.loggedAttemptOf(delivery));
    if (outcome.status !== 'succeeded') return { kind: 'wait', ms: this.held.trialDelayMs() };
    await this.held.release(organisationId);
    return { kind: 'done' };
  }

  /**
   * Claims an admitted attempt (DeliveriesRepository.claimAttempt). Undefined when claimed; otherwise
   * the admission goes back to the gate and what the caller returns: done when the attempt was made
   * (or the delivery finished), a short wait when another job is making it now (then it looks again).
   */
  private async claim(delivery: Delivery, attemptNo: number, claimant: string): Promise<Delivered | undefined> {
    let claim: 'claimed' | 'made' | 'taken' | 'superseded';
    try {
      claim = await this.repository.claimAttempt(delivery.deliveryId, delivery.series, attemptNo, claimant, this.config.WEBHOOK_LOCK_DURATION_MS);
    } catch (error) {
      this.gate.cancel(delivery.organisationId);
      throw error;
    }
    if (claim === 'claimed') return undefined;
    this.gate.cancel(delivery.organisationId);
    if (claim === 'superseded') {
      this.outcomes.inc({ outcome: 'superseded' });
      return { kind: 'done' };
    }
    this.waits.inc({ reason: claim === 'made' ? 'attempt-made' : 'attempt-claimed' });
    return claim === 'made' ? { kind: 'done' } : { kind: 'wait', ms: CLAIMED_WAIT_MS };
  }

  private async target(organisationId: string): Promise<WebhookTarget | undefined> {
    try {
      return await this.resolver.resolve(organisationId);
    } catch (error) {
      this.logger.warn(`target of organisation ${organisationId} unknown: ${(error as Error).message}`);
      this.waits.inc({ reason: 'target-unknown' });
      return undefined;
    }
  }

  /**
   * One admitted call, reported to the gate and logged by `record` (which says which logged delivery
   * it was an attempt of: null when another copy of the event owns the delivery); what follows it is
   * decided here, once.
   */
  private async attempt(
    delivery: DeliveryCall,
    attemptNo: number,
    target: WebhookTarget & { baseUrl: string },
    record: (outcome: AttemptOutcome) => Promise<Delivery | null>,
  ): Promise<{ delivery: Delivery | null; status: DeliveryStatus; retryInMs: number; closed: boolean }> {
    const org = delivery.organisationId;
    let call;
    try {
      call = await this.sender.send(delivery, target);
    } catch (error) {
      this.gate.cancel(org);
      throw error;
    }
    let report: GateReport = { closed: false, disabled: null };
    try {
      report = await this.gate.report(org, { verdict: call.verdict, durationMs: call.durationMs, baseUrl: target.baseUrl, url: call.url ?? target.baseUrl });
    } catch (error) {
      // Endpoint health is bookkeeping: its failure must not turn a delivered webhook into a retry.
      this.logger.warn(`endpoint bookkeeping for ${org} failed: ${(error as Error).message}`);
    }
    const step = stepAfterAttempt(call.verdict, attemptNo, this.retryPolicy);
    let status: DeliveryStatus = step.status;
    let retryInMs = step.status === 'failed' ? step.retryInMs : 0;
    let errorMessage = call.errorMessage;
    // The failure that disabled the endpoint ends its delivery too.
    if (report.disabled !== null && status === 'failed') {
      status = 'dead';
      errorMessage = `${errorMessage ?? 'failed'}; endpoint disabled: ${report.disabled}`;
    }
    const logged = await record({
      startedAt: call.startedAt,
      durationMs: call.durationMs,
      statusCode: call.response?.status ?? null,
      errorKind: call.errorKind,
      errorMessage,
      responseExcerpt: call.response ? call.response.body : null,
      status,
      nextAttemptAt: status === 'failed' ? new Date(Date.now() + retryInMs) : null,
      url: call.url,
    });
    this.outcomes.inc({ outcome: status });
    this.callDurations.observe(call.durationMs / 1000);
    if (status !== 'failed') retryInMs = 0;
    return { delivery: logged, status, retryInMs, closed: report.closed && status === 'succeeded' };
  }

  /** A decision taken without calling the integrator. */
  private async settle(delivery: Delivery, status: 'dead' | 'skipped', reason: string): Promise<void> {
    await this.repository.settle(delivery.deliveryId, delivery.series, status, reason);
    this.outcomes.inc({ outcome: status });
  }

  private releaseHeld(organisationId: string): void {
    // This process's half-open call got through: what was held for the endpoint goes now, not at its
    // trial job. Only after the attempt is logged, so the delivery just made is no longer held.
    this.held.release(organisationId).catch((error: Error) => this.logger.warn(`release of ${organisationId}: ${error.message}`));
  }
}
