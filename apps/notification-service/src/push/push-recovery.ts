import { type PlannedPushJob, planPushJobs } from './fan-out.js';
import type { PushKind } from './push-transport.js';

/** An offer event whose pushes are not yet known to be finished (`pending_fan_out`). */
export interface PendingFanOut {
  eventId: string;
  offerId: string;
  organisationId: string;
  /** The offer's title, as the event carried it. */
  title: string;
  createdAt: Date;
}

/**
 * One device of a pending fan-out without a final outcome: no `push_delivery` row yet (its job has not
 * claimed it), or one still `sending` or `retrying`.
 */
export interface UnfinishedPush {
  eventId: string;
  deviceId: string;
  workerId: string;
  kind: PushKind;
  status: 'sending' | 'retrying' | null;
  /** When its row last changed; null without a row. */
  updatedAt: Date | null;
}

export interface PushRecoveryTimes {
  /** How long a push may make no progress before its job is taken to be lost. */
  recoverAfterMs: number;
  /** The longest back-off a push job waits between attempts: a `retrying` row waits that long for its job. */
  retryWaitMs: number;
  /** A fan-out older than this is given up: its pushes would arrive after their time to live. */
  giveUpAfterMs: number;
}

export interface PushRecoveryPlan {
  /** Push jobs for the devices whose jobs are taken to be lost. */
  jobs: PlannedPushJob[];
  /** Fan-outs whose every device has a final outcome. */
  finished: string[];
  /** Fan-outs too old to push any more, finished or not. */
  givenUp: string[];
}

/**
 * The job id of a recovery: one per event, batch and period of `recoverAfterMs`, so the sweeps of
 * several instances in one period queue one job, and a later period can queue again what a lost
 * recovery job left. A device is never pushed twice however many jobs name it: jobs claim devices.
 */
export function recoveryJobId(eventId: string, period: number, batchIndex: number): string {
  return `${eventId}.r${period}.${batchIndex}`;
}

/** Whether a device's push is overdue: nothing happened to it for longer than its job could take. */
function overdue(push: UnfinishedPush, fanOut: PendingFanOut, now: number, times: PushRecoveryTimes): boolean {
  switch (push.status) {
    case null:
      return now - fanOut.createdAt.getTime() >= times.recoverAfterMs;
    case 'sending':
      return now - (push.updatedAt?.getTime() ?? 0) >= times.recoverAfterMs;
    case 'retrying':
      return now - (push.updatedAt?.getTime() ?? 0) >= times.recoverAfterMs + times.retryWaitMs;
  }
}

/**
 * What the push recovery sweep does with pending fan-outs: queue again the pushes that made no progress
 * for too long (their jobs were lost with Redis's data, or their process died mid-send and nothing
 * retried it), forget the fan-outs that are finished, and give up on those past their time to live.
 * A push still within its time (queued, being sent, waiting for its back-off) is left to its job.
 */
export function planPushRecovery(now: number, times: PushRecoveryTimes, fanOuts: readonly PendingFanOut[], unfinished: readonly UnfinishedPush[]): PushRecoveryPlan {
  const byEvent = new Map<string, UnfinishedPush[]>();
  for (const push of unfinished) {
    const list = byEvent.get(push.eventId);
    if (list) list.push(push);
    else byEvent.set(push.eventId, [push]);
  }
  const plan: PushRecoveryPlan = { jobs: [], finished: [], givenUp: [] };
  const period = Math.floor(now / times.recoverAfterMs);
  for (const fanOut of fanOuts) {
    if (now - fanOut.createdAt.getTime() >= times.giveUpAfterMs) {
      plan.givenUp.push(fanOut.eventId);
      continue;
    }
    const pushes = byEvent.get(fanOut.eventId) ?? [];
    if (pushes.length === 0) {
      plan.finished.push(fanOut.eventId);
      continue;
    }
    const lost = pushes.filter((push) => overdue(push, fanOut, now, times));
    if (lost.length === 0) continue;
    const kinds = new Map(lost.map((push) => [push.workerId, push.kind]));
    const devices = lost.map((push) => ({ id: push.deviceId, workerId: push.workerId }));
    for (const job of planPushJobs(fanOut, kinds, devices)) {
      plan.jobs.push({ jobId: recoveryJobId(fanOut.eventId, period, job.data.batchIndex), data: job.data });
    }
  }
  return plan;
}
