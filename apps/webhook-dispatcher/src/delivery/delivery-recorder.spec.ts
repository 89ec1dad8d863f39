import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { WebhookDispatcherConfig } from '../config/webhook-dispatcher.config.js';
import { firstAttemptRecord } from '../../test/first-attempt.fixture.js';
import type { DeliveriesRepository, FirstAttemptRecord } from './deliveries.repository.js';
import { DeliveryRecorder } from './delivery-recorder.js';

/** The recorder over a repository that only counts the statements it would run. */
function recorder(lingerMs: string): { recorder: DeliveryRecorder; statements: number[] } {
  const statements: number[] = [];
  const repository = {
    recordFirstAttempts: async (records: FirstAttemptRecord[]) => {
      statements.push(records.length);
      return records.map((_, index) => index + 1);
    },
  } as unknown as DeliveriesRepository;
  return { recorder: new DeliveryRecorder(repository, loadConfig(WebhookDispatcherConfig, { WEBHOOK_RECORD_LINGER_MS: lingerMs })), statements };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('DeliveryRecorder', () => {
  it('logs first attempts that finish within the linger in one statement', async () => {
    const { recorder: subject, statements } = recorder('300');
    const first = subject.firstAttempt(firstAttemptRecord('event-1'));
    await pause(10);
    await Promise.all([first, subject.firstAttempt(firstAttemptRecord('event-2'))]);
    expect(statements).toEqual([2]);
  });

  it('logs each first attempt at once with no linger', async () => {
    const { recorder: subject, statements } = recorder('0');
    await subject.firstAttempt(firstAttemptRecord('event-1'));
    await pause(10);
    await subject.firstAttempt(firstAttemptRecord('event-2'));
    expect(statements).toEqual([1, 1]);
  });

  it('writes a burst in batches of a quarter of the intake slots at once, leaving only the rest to linger', async () => {
    // 512 intake slots (the default): batches of 128, so the slots that are not waiting keep calling.
    const { recorder: subject, statements } = recorder('1000');
    const burst = Array.from({ length: 300 }, (_, i) => subject.firstAttempt(firstAttemptRecord(`event-${i}`)));
    await Promise.all(burst.slice(0, 256));
    expect(statements).toEqual([128, 128]);
    await Promise.all(burst);
    expect(statements).toEqual([128, 128, 44]);
  });

  it('writes what lingers when the service stops, without waiting it out', async () => {
    const { recorder: subject, statements } = recorder('1000');
    const pending = subject.firstAttempt(firstAttemptRecord('event-1'));
    await subject.onModuleDestroy();
    // Written by the stop itself, a second before the linger would have written it.
    expect(statements).toEqual([1]);
    await expect(pending).resolves.toBe(1);
  });
});
