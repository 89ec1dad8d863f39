import { describe, expect, it } from '@jest/globals';
import { type PendingFanOut, planPushRecovery, type PushRecoveryTimes, recoveryJobId, type UnfinishedPush } from './push-recovery.js';

const MINUTE = 60_000;
const times: PushRecoveryTimes = { recoverAfterMs: 5 * MINUTE, retryWaitMs: 15 * MINUTE, giveUpAfterMs: 24 * 60 * MINUTE };
const now = Date.parse('2030-01-01T12:00:00Z');
const ago = (ms: number) => new Date(now - ms);

function fanOut(eventId: string, age: number): PendingFanOut {
  return { eventId, offerId: `offer-${eventId}`, organisationId: 'org', title: 'Night pickers', createdAt: ago(age) };
}

function push(eventId: string, deviceId: string, status: UnfinishedPush['status'], age?: number): UnfinishedPush {
  return { eventId, deviceId, workerId: `worker-of-${deviceId}`, kind: 'offer.created', status, updatedAt: age === undefined ? null : ago(age) };
}

const devicesOf = (plan: ReturnType<typeof planPushRecovery>) => plan.jobs.flatMap((job) => job.data.targets.map((t) => t.d)).sort();

describe('push recovery plan', () => {
  it('forgets a fan-out whose every device has a final outcome', () => {
    expect(planPushRecovery(now, times, [fanOut('e1', 6 * MINUTE)], [])).toEqual({ jobs: [], finished: ['e1'], givenUp: [] });
  });

  it('queues again the devices no job claimed once the fan-out is older than recoverAfter, and not a moment before', () => {
    const due = planPushRecovery(now, times, [fanOut('e1', 5 * MINUTE)], [push('e1', 'd1', null), push('e1', 'd2', null)]);
    expect(devicesOf(due)).toEqual(['d1', 'd2']);
    expect(due.finished).toEqual([]);
    const early = planPushRecovery(now, times, [fanOut('e1', 5 * MINUTE - 1)], [push('e1', 'd1', null)]);
    expect(early).toEqual({ jobs: [], finished: [], givenUp: [] });
  });

  it('takes over a claim left sending for recoverAfter, and leaves a younger one to its job', () => {
    const plan = planPushRecovery(now, times, [fanOut('e1', 30 * MINUTE)], [push('e1', 'stale', 'sending', 5 * MINUTE), push('e1', 'live', 'sending', 5 * MINUTE - 1)]);
    expect(devicesOf(plan)).toEqual(['stale']);
  });

  it('gives a retrying device its longest back-off on top of recoverAfter before taking its job to be lost', () => {
    const fanOuts = [fanOut('e1', 60 * MINUTE)];
    expect(planPushRecovery(now, times, fanOuts, [push('e1', 'd1', 'retrying', 20 * MINUTE - 1)]).jobs).toEqual([]);
    expect(devicesOf(planPushRecovery(now, times, fanOuts, [push('e1', 'd1', 'retrying', 20 * MINUTE)]))).toEqual(['d1']);
  });

  it('gives up a fan-out past the time to live of its pushes, finished or not', () => {
    const plan = planPushRecovery(now, times, [fanOut('old', 24 * 60 * MINUTE), fanOut('young', 6 * MINUTE)], [push('old', 'd1', null), push('young', 'd2', null)]);
    expect(plan.givenUp).toEqual(['old']);
    expect(devicesOf(plan)).toEqual(['d2']);
  });

  it('names each job by event, period and batch, with each worker’s kind and the event’s offer', () => {
    const pushes = Array.from({ length: 501 }, (_, i) => ({ ...push('e1', `d${String(i).padStart(3, '0')}`, null), kind: i % 2 ? ('offer.successful' as const) : ('offer.unsuccessful' as const) }));
    const plan = planPushRecovery(now, times, [fanOut('e1', 10 * MINUTE)], pushes);
    const period = Math.floor(now / times.recoverAfterMs);
    expect(plan.jobs.map((job) => job.jobId)).toEqual([recoveryJobId('e1', period, 0), recoveryJobId('e1', period, 1)]);
    expect(plan.jobs[0].jobId).toBe(`e1.r${period}.0`);
    expect(plan.jobs.map((job) => job.data.targets.length)).toEqual([500, 1]);
    expect(plan.jobs[0].data).toMatchObject({ eventId: 'e1', offerId: 'offer-e1', organisationId: 'org', title: 'Night pickers' });
    expect(plan.jobs[0].data.targets.find((t) => t.d === 'd001')).toEqual({ d: 'd001', w: 'worker-of-d001', k: 'offer.successful' });
    // The next period names new jobs: a recovery job lost in its turn is queued again.
    const later = planPushRecovery(now + times.recoverAfterMs, times, [fanOut('e1', 10 * MINUTE + times.recoverAfterMs)], pushes);
    expect(later.jobs[0].jobId).toBe(recoveryJobId('e1', period + 1, 0));
  });

  it('keeps a fan-out with pushes still within their time without queueing anything', () => {
    expect(planPushRecovery(now, times, [fanOut('e1', 6 * MINUTE)], [push('e1', 'd1', 'retrying', MINUTE)])).toEqual({ jobs: [], finished: [], givenUp: [] });
  });
});
