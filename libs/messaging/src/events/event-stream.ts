import { DiscardPolicy, type JetStreamManager, RetentionPolicy, StorageType, type StreamConfig, type StreamInfo } from '@nats-io/jetstream';
import { Logger } from '@nestjs/common';
import { nanos, PermissionViolationError } from '@nats-io/transport-node';
import { STREAM_SUBJECT_ROOTS } from '@availability/contracts';
import { DAY_MS, ServiceConfig } from '@availability/service-core';

export interface EventStreamOptions {
  name: string;
  subjectPrefix: string;
  /** Copies kept by a NATS cluster (EVENTS_STREAM_REPLICAS); the consumers inherit it. 1 when not given. */
  replicas?: number;
  /** Bytes the stream holds at most (EVENTS_STREAM_MAX_BYTES); EVENTS_STREAM_DEFAULT_MAX_BYTES when not given. */
  maxBytes?: number;
  /** How long the stream keeps an event (EVENTS_STREAM_MAX_AGE_DAYS); ServiceConfig's default when not given. */
  maxAgeMs?: number;
}

/** ServiceConfig's default of EVENTS_STREAM_MAX_BYTES (1 GiB). */
export const EVENTS_STREAM_DEFAULT_MAX_BYTES = new ServiceConfig().EVENTS_STREAM_MAX_BYTES;
const DEFAULT_MAX_AGE_MS = new ServiceConfig().EVENTS_STREAM_MAX_AGE_DAYS * DAY_MS;

/** The stream as every service names it from its configuration. */
export function eventStreamOptions(config: ServiceConfig): EventStreamOptions {
  return {
    name: config.EVENTS_STREAM,
    subjectPrefix: config.NATS_SUBJECT_PREFIX,
    replicas: config.EVENTS_STREAM_REPLICAS,
    maxBytes: config.EVENTS_STREAM_MAX_BYTES,
    maxAgeMs: Math.round(config.EVENTS_STREAM_MAX_AGE_DAYS * DAY_MS),
  };
}

/**
 * How long JetStream remembers a Nats-Msg-Id: a relay that crashes after publishing and restarts within
 * it publishes no duplicate. No longer than the stream keeps events (JetStream's rule).
 */
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

/**
 * The stream keeps events `max_age` and at most `max_bytes`. At the byte limit it refuses new events
 * (`discard: new`) rather than dropping the oldest, which a consumer may not have read yet: the outbox
 * relay keeps a refused event in its outbox and tries again until events age out or the limit is
 * raised (docs/operator-guide.md "Bounds").
 */
export function eventStreamConfig(options: EventStreamOptions): Partial<StreamConfig> & { name: string; subjects: string[]; max_bytes: number; discard: DiscardPolicy } {
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  return {
    name: options.name,
    subjects: STREAM_SUBJECT_ROOTS.map((root) => `${options.subjectPrefix}${root}.>`),
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, maxAgeMs)),
    max_age: nanos(maxAgeMs),
    max_bytes: options.maxBytes ?? EVENTS_STREAM_DEFAULT_MAX_BYTES,
    discard: DiscardPolicy.New,
    num_replicas: options.replicas ?? 1,
  };
}

/** Creates the platform's event stream, or brings its subjects, replicas and limits up to date. Safe to call from every instance at every start. */
export async function ensureEventStream(jsm: JetStreamManager, options: EventStreamOptions): Promise<void> {
  const wanted = eventStreamConfig(options);
  try {
    const info = await jsm.streams.info(wanted.name);
    const config = { ...wanted, max_bytes: safeMaxBytes(info, wanted.max_bytes) };
    const lacks = differences(info.config, config);
    if (lacks.length > 0) {
      const subjects = [...(info.config.subjects ?? []), ...config.subjects.filter((subject) => !info.config.subjects?.includes(subject))];
      try {
        const { num_replicas, max_bytes, discard, max_age, duplicate_window } = config;
        await jsm.streams.update(config.name, { ...info.config, subjects, num_replicas, max_bytes, discard, max_age, duplicate_window });
      } catch (error) {
        // Only contact-directory may change the stream (bus-permissions.ts); it updates it when it starts.
        if (!isPermissionViolation(error)) throw error;
        new Logger('EventStream').warn(`stream ${config.name} lacks ${lacks.join(', ')}; contact-directory updates it when it starts`);
      }
    }
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    try {
      await jsm.streams.add(wanted);
    } catch (addError) {
      // Another instance created it between our info and add.
      if (!/already in use/i.test((addError as Error).message)) throw addError;
    }
  }
}

/**
 * The byte limit an existing stream may be given: never one below what it holds, which JetStream would
 * meet by deleting its oldest events, read or not. The lower limit is applied at a later start, once
 * older events have aged out.
 */
function safeMaxBytes(info: StreamInfo, maxBytes: number): number {
  if (maxBytes >= info.state.bytes || maxBytes === info.config.max_bytes) return maxBytes;
  new Logger('EventStream').warn(
    `stream ${info.config.name} holds ${info.state.bytes} bytes, more than EVENTS_STREAM_MAX_BYTES ${maxBytes}: its limit stays ${info.config.max_bytes} (lowering it would delete events) until older events age out`,
  );
  return info.config.max_bytes;
}

/** What an existing stream lacks of the configuration: missing subjects, another replica count or other limits. */
function differences(actual: StreamConfig, wanted: ReturnType<typeof eventStreamConfig>): string[] {
  return [
    ...wanted.subjects.filter((subject) => !actual.subjects?.includes(subject)),
    ...(actual.num_replicas !== wanted.num_replicas ? [`${wanted.num_replicas} replicas (has ${actual.num_replicas})`] : []),
    ...(actual.max_bytes !== wanted.max_bytes ? [`max_bytes ${wanted.max_bytes} (has ${actual.max_bytes})`] : []),
    ...(actual.discard !== wanted.discard ? [`discard ${wanted.discard} (has ${actual.discard})`] : []),
    ...(actual.max_age !== wanted.max_age ? [`max_age ${wanted.max_age} ns (has ${actual.max_age})`] : []),
    ...(actual.duplicate_window !== wanted.duplicate_window ? [`duplicate_window ${wanted.duplicate_window} ns (has ${actual.duplicate_window})`] : []),
  ];
}

function isPermissionViolation(error: unknown): boolean {
  return error instanceof PermissionViolationError || (error as Error)?.cause instanceof PermissionViolationError;
}

function isStreamNotFound(error: unknown): boolean {
  return /stream not found/i.test((error as Error)?.message ?? '');
}

export const EVENT_STREAM_READY = Symbol('EVENT_STREAM_READY');
