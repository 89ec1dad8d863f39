import { type JetStreamManager, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { Logger } from '@nestjs/common';
import { nanos, PermissionViolationError } from '@nats-io/transport-node';
import { STREAM_SUBJECT_ROOTS } from '@availability/contracts';
import type { ServiceConfig } from '@availability/service-core';

export interface EventStreamOptions {
  name: string;
  subjectPrefix: string;
  /** Copies kept by a NATS cluster (EVENTS_STREAM_REPLICAS); the consumers inherit it. 1 when not given. */
  replicas?: number;
}

/** The stream as every service names it from its configuration. */
export function eventStreamOptions(config: ServiceConfig): EventStreamOptions {
  return { name: config.EVENTS_STREAM, subjectPrefix: config.NATS_SUBJECT_PREFIX, replicas: config.EVENTS_STREAM_REPLICAS };
}

/** How long JetStream remembers a Nats-Msg-Id: a relay that crashes after publishing and restarts within it publishes no duplicate. */
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;
const MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The shortest retention, in days, of a log whose rows also recognise an event already handled (a
 * webhook delivery, a worker's notification, a push, an answer): a day longer than the stream keeps
 * events, so no copy of an event (redelivered, or replayed by a consumer reset) can arrive after the
 * row that would recognise it is gone and be handled a second time.
 */
export const EVENT_RECORD_MIN_RETENTION_DAYS = MAX_AGE_MS / 86_400_000 + 1;

export function eventStreamConfig(options: EventStreamOptions): Partial<StreamConfig> & { name: string; subjects: string[] } {
  return {
    name: options.name,
    subjects: STREAM_SUBJECT_ROOTS.map((root) => `${options.subjectPrefix}${root}.>`),
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    max_age: nanos(MAX_AGE_MS),
    num_replicas: options.replicas ?? 1,
  };
}

/** Creates the platform's event stream, or brings its subjects and replicas up to date. Safe to call from every instance at every start. */
export async function ensureEventStream(jsm: JetStreamManager, options: EventStreamOptions): Promise<void> {
  const config = eventStreamConfig(options);
  try {
    const info = await jsm.streams.info(config.name);
    const missing = config.subjects.filter((subject) => !info.config.subjects?.includes(subject));
    const rescale = info.config.num_replicas !== config.num_replicas;
    if (missing.length > 0 || rescale) {
      try {
        await jsm.streams.update(config.name, { ...info.config, subjects: [...(info.config.subjects ?? []), ...missing], num_replicas: config.num_replicas });
      } catch (error) {
        // Only contact-directory may change the stream (bus-permissions.ts); it updates it when it starts.
        if (!isPermissionViolation(error)) throw error;
        const lacks = [...missing, ...(rescale ? [`${config.num_replicas} replicas (has ${info.config.num_replicas})`] : [])];
        new Logger('EventStream').warn(`stream ${config.name} lacks ${lacks.join(', ')}; contact-directory updates it when it starts`);
      }
    }
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    try {
      await jsm.streams.add(config);
    } catch (addError) {
      // Another instance created it between our info and add.
      if (!/already in use/i.test((addError as Error).message)) throw addError;
    }
  }
}

function isPermissionViolation(error: unknown): boolean {
  return error instanceof PermissionViolationError || (error as Error)?.cause instanceof PermissionViolationError;
}

function isStreamNotFound(error: unknown): boolean {
  return /stream not found/i.test((error as Error)?.message ?? '');
}

export const EVENT_STREAM_READY = Symbol('EVENT_STREAM_READY');
