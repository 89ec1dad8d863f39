import { MAX_PUSH_BATCH, type PushKind } from './push-transport.js';

/** One device to push to, and what to tell its worker. */
export interface PushTarget {
  /** device id */
  d: string;
  /** worker id */
  w: string;
  k: PushKind;
}

export interface PushJobData {
  eventId: string;
  offerId: string;
  organisationId: string;
  title: string;
  batchIndex: number;
  targets: PushTarget[];
}

export interface PlannedPushJob {
  jobId: string;
  data: PushJobData;
}

/** BullMQ forbids a single `:` in custom job ids, so event and batch are joined with `.`. */
export function pushJobId(eventId: string, batchIndex: number): string {
  return `${eventId}.${batchIndex}`;
}

export function batches<T>(items: readonly T[], size = MAX_PUSH_BATCH): T[][] {
  if (size < 1) throw new Error('batch size must be at least 1');
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Splits an event's devices into push jobs of at most 500. Devices are sorted by id first, so the
 * same devices give the same batches (and job ids) however often the event is redelivered.
 */
export function planPushJobs(
  event: { eventId: string; offerId: string; organisationId: string; title: string },
  kindByWorker: ReadonlyMap<string, PushKind>,
  devices: ReadonlyArray<{ id: string; workerId: string }>,
  batchSize = MAX_PUSH_BATCH,
): PlannedPushJob[] {
  const targets: PushTarget[] = [];
  for (const device of [...devices].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const kind = kindByWorker.get(device.workerId);
    if (kind) targets.push({ d: device.id, w: device.workerId, k: kind });
  }
  return batches(targets, batchSize).map((batch, batchIndex) => ({
    jobId: pushJobId(event.eventId, batchIndex),
    data: { eventId: event.eventId, offerId: event.offerId, organisationId: event.organisationId, title: event.title, batchIndex, targets: batch },
  }));
}

/** Who is told what for each offer event. A worker named twice is told once (the first kind wins). */
export function recipientKinds(
  groups: ReadonlyArray<{ kind: PushKind; workerIds: readonly string[] }>,
): Map<string, PushKind> {
  const out = new Map<string, PushKind>();
  for (const group of groups) for (const workerId of group.workerIds) if (!out.has(workerId)) out.set(workerId, group.kind);
  return out;
}
