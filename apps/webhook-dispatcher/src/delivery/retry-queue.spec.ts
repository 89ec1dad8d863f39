import { describe, expect, it } from '@jest/globals';
import type { JobQueues } from '@availability/jobs';
import { jobIdFor } from '../domain/webhook-call.js';
import type { Delivery } from './delivery.js';
import { type AttemptJob, RetryQueue } from './retry-queue.js';

/** RetryQueue over a queue that only records the jobs it is given. */
function retryQueue(): { queue: RetryQueue; added: Array<{ data: AttemptJob; opts: { jobId: string } }> } {
  const added: Array<{ data: AttemptJob; opts: { jobId: string } }> = [];
  const jobs = {
    addBulk: async (_name: string, batch: Array<{ data: AttemptJob; opts: { jobId: string } }>) => {
      added.push(...batch);
    },
  } as unknown as JobQueues;
  return { queue: new RetryQueue(jobs), added };
}

const DELIVERY: Delivery = {
  deliveryId: 7,
  series: 0,
  eventId: '0b4cf7e4-5bb4-4c5e-9b1c-2f8c1a5e9d10',
  organisationId: 'org-1',
  subject: 'offers.response.recorded',
  webhookId: '0b4cf7e4-5bb4-4c5e-9b1c-2f8c1a5e9d10:org-1',
  method: 'POST',
  path: '/offer/response',
  body: '{}',
};

describe('RetryQueue', () => {
  it('names a released attempt by its hold, and the attempt after it by its number alone', async () => {
    const { queue, added } = retryQueue();
    await queue.schedule(DELIVERY, 2, 0, '1795877405051234');
    // The released job fails: what it hands on is its own data, hold included.
    await queue.schedule(added[0].data, 3, 1_000);
    expect(added.map((job) => job.opts.jobId)).toEqual([jobIdFor(DELIVERY.eventId, 'org-1', 0, 2, '1795877405051234'), jobIdFor(DELIVERY.eventId, 'org-1', 0, 3)]);
    expect(added[1].data.heldSince).toBeUndefined();
  });
});
