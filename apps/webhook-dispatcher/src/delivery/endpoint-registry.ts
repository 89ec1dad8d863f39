import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { EventSubject, type WebhookEndpointDisabledEvent } from '@availability/contracts';
import { newEvent, OutboxRelay, outboxMessage } from '@availability/messaging';
import { TtlCache } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { holdWithJitter } from '../domain/backoff.js';
import { CircuitBreakers } from '../domain/circuit-breaker.js';
import { EndpointLimiter } from '../domain/endpoint-limiter.js';
import { DeliveriesRepository } from './deliveries.repository.js';
import { HeldDeliveries } from './held-deliveries.js';
import { TargetResolver } from './target-resolver.js';

interface EndpointState {
  disabled: boolean;
  /** Why it was disabled (what the organisation was told), when it is. */
  disabledReason: string | null;
  failingSince: number | null;
}

/** How long this instance trusts its copy of an endpoint's state (another instance may disable it). */
const STATE_TTL_MS = 5_000;
/** A saturated endpoint where no call has finished for this long gets no more callers waiting in line. */
const STALL_MS = 500;
/** A busy endpoint's line is as long as it works through in this time at its recent pace. */
const MAX_LINE_WAIT_MS = 250;
/** Delay before a job put back for a busy or stalled endpoint looks again (plus jitter). */
export const PUT_BACK_MS = 1_000;

/**
 * Everything the dispatcher knows about an integrator's endpoint beyond its address: the circuit
 * breaker and in-flight limit (per process), and the failure streak and disabled flag (in Postgres,
 * shared by all instances, cached briefly). Disabling writes `webhooks.endpoint.disabled` through
 * the outbox; a `webhook-target.changed` broadcast enables the endpoint again.
 */
@Injectable()
export class EndpointRegistry implements OnModuleInit {
  private readonly logger = new Logger('EndpointRegistry');
  readonly breakers: CircuitBreakers;
  readonly limiter: EndpointLimiter;
  private readonly states = new TtlCache<string, EndpointState>(100_000);
  private readonly loading = new Map<string, Promise<EndpointState>>();

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly resolver: TargetResolver,
    private readonly relay: OutboxRelay,
    private readonly held: HeldDeliveries,
    private readonly config: WebhookDispatcherConfig,
  ) {
    this.breakers = new CircuitBreakers({ failureThreshold: config.WEBHOOK_BREAKER_THRESHOLD, cooldownMs: config.WEBHOOK_BREAKER_COOLDOWN_MS });
    this.limiter = new EndpointLimiter({
      perKey: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      stallMs: STALL_MS,
      // A healthy endpoint's backlog queues here rather than churning through Redis (up to every worker
      // slot its calls do not use); a slow one's line is as short as its pace, so it cannot take them all.
      maxWaiters: Math.max(config.WEBHOOK_ENDPOINT_CONCURRENCY, config.WEBHOOK_CONCURRENCY - config.WEBHOOK_ENDPOINT_CONCURRENCY),
      maxLineWaitMs: MAX_LINE_WAIT_MS,
    });
  }

  onModuleInit(): void {
    this.resolver.onChanged((organisationId) => {
      this.breakers.reset(organisationId);
      this.states.delete(organisationId);
      // The integrator re-saved its endpoint (and passed /test and /test/auth): what was held for it goes now.
      this.repository
        .enable(organisationId)
        .then(() => this.held.release(organisationId))
        .catch((error: Error) => this.logger.warn(`enable ${organisationId}: ${error.message}`));
    });
  }

  async state(organisationId: string): Promise<EndpointState> {
    const cached = this.states.get(organisationId);
    if (cached) return cached;
    let pending = this.loading.get(organisationId);
    if (!pending) {
      pending = this.repository
        .endpoint(organisationId)
        .then((row) => {
          const state = {
            disabled: !!row?.disabledAt,
            disabledReason: row?.disabledAt ? (row.disabledReason ?? 'disabled') : null,
            failingSince: row?.failingSince ? row.failingSince.getTime() : null,
          };
          this.states.set(organisationId, state, STATE_TTL_MS);
          return state;
        })
        .finally(() => this.loading.delete(organisationId));
      this.loading.set(organisationId, pending);
    }
    return pending;
  }

  /**
   * While the endpoint's circuit is open, when its trial call is due (with jitter): a new delivery for it
   * is then held (HeldDeliveries) instead of queued. 0 when the circuit is closed or due for its trial.
   */
  trialInMs(organisationId: string): number {
    const open = this.breakers.openForMs(organisationId);
    return open > 0 ? holdWithJitter(open) : 0;
  }

  /**
   * How long a new delivery for this endpoint should wait before its first look: 0 normally; while the
   * endpoint is stalled (every slot taken, no call finishing), as long as a job would be put back for.
   * Queuing it delayed at once spares a fetch and a put-back — work the healthy endpoints would pay for.
   */
  delayMs(organisationId: string): number {
    return this.limiter.stalled(organisationId) ? holdWithJitter(PUT_BACK_MS) : 0;
  }

  async recordSuccess(organisationId: string): Promise<void> {
    this.breakers.recordSuccess(organisationId);
    const state = await this.state(organisationId);
    if (state.failingSince !== null) {
      state.failingSince = null;
      await this.repository.clearFailing(organisationId);
    }
  }

  /**
   * A failure that says the endpoint is unwell (not a 429). Disables it after failing for
   * `WEBHOOK_DISABLE_AFTER_HOURS` without a single success; returns the reason when it did.
   */
  async recordFailure(organisationId: string, baseUrl: string): Promise<string | null> {
    this.breakers.recordFailure(organisationId);
    const state = await this.state(organisationId);
    if (state.failingSince === null) {
      state.failingSince = (await this.repository.markFailing(organisationId, baseUrl)).getTime();
    }
    const failingMs = Date.now() - state.failingSince;
    if (failingMs < this.config.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000) return null;
    const reason = `${baseUrl} had no successful call for ${formatDuration(failingMs)}`;
    await this.disable(organisationId, baseUrl, reason);
    return reason;
  }

  async disable(organisationId: string, baseUrl: string, reason: string): Promise<void> {
    const event = newEvent<Pick<WebhookEndpointDisabledEvent, 'baseUrl' | 'reason'>>(organisationId, { baseUrl, reason });
    const disabled = await this.repository.disable(organisationId, baseUrl, reason, outboxMessage(EventSubject.WebhookEndpointDisabled, event));
    this.states.set(organisationId, { disabled: true, disabledReason: reason, failingSince: null }, STATE_TTL_MS);
    if (disabled) {
      this.logger.warn(`disabled the endpoint of organisation ${organisationId}: ${reason}`);
      this.relay.wake();
    }
  }
}

/** `45 s`, `12 min`, `26.5 hours`: how long an endpoint kept failing, as the organisation is told. */
export function formatDuration(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1_000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round((ms / 3_600_000) * 10) / 10} hours`;
}
