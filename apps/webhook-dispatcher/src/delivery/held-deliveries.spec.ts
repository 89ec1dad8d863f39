import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import type { DeliveriesRepository } from './deliveries.repository.js';
import { HeldDeliveries } from './held-deliveries.js';
import type { RetryQueue } from './retry-queue.js';

/** HeldDeliveries over a queue that only records the trial jobs it is asked for. */
function heldDeliveries(): { held: HeldDeliveries; trialCalls: Array<Array<{ organisationId: string; delayMs: number }>> } {
  const trialCalls: Array<Array<{ organisationId: string; delayMs: number }>> = [];
  const retries = {
    scheduleTrials: async (trials: Array<{ organisationId: string; delayMs: number }>) => {
      trialCalls.push(trials);
    },
  } as unknown as RetryQueue;
  const repository = { hold: async () => undefined } as unknown as DeliveriesRepository;
  return { held: new HeldDeliveries(repository, retries, loadConfig(WebhookDispatcherConfig, {})), trialCalls };
}

describe('HeldDeliveries', () => {
  it('asks for one trial job per endpoint when a statement’s worth of deliveries held from the start come back together', async () => {
    const { held, trialCalls } = heldDeliveries();
    // As a burst's lingering statement resolves: every event of it at once, two endpoints.
    await Promise.all(Array.from({ length: 500 }, (_, i) => held.heldFromStart(i % 2 === 0 ? 'org-a' : 'org-b', 1_000 + i)));
    expect(trialCalls).toEqual([[{ organisationId: 'org-a', delayMs: 1_000 }, { organisationId: 'org-b', delayMs: 1_001 }]]);
    // Scheduled and not yet due: more of the same endpoints ask for nothing.
    await held.heldFromStart('org-a', 5);
    expect(trialCalls).toHaveLength(1);
    await held.onModuleDestroy();
  });
});
