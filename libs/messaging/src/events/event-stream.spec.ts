import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscardPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createTestEventNamespace, type TestEventNamespace } from '@availability/testing';
import { loadConfig, ServiceConfig } from '@availability/service-core';
import { ensureEventStream, eventStreamConfig, eventStreamOptions } from './event-stream.js';

let namespace: TestEventNamespace;

beforeAll(async () => {
  namespace = await createTestEventNamespace();
});

afterAll(async () => {
  await namespace?.dispose();
});

describe('ensureEventStream on the authorised bus', () => {
  it('any service creates the stream; only contact-directory adds missing subjects and sets its limits, the others carry on', async () => {
    const options = { name: namespace.stream, subjectPrefix: namespace.prefix };
    const observerConnection = await namespace.connect();
    const observer = await jetstreamManager(observerConnection);
    const full = eventStreamConfig(options);
    // An older stream: it lacks the last subject family, and has no byte limit, dropping its oldest events at one.
    await observer.streams.add({ ...full, subjects: full.subjects.slice(0, -1), max_bytes: -1, discard: DiscardPolicy.Old });

    const offersApi = await namespace.connect('offers-api');
    await expect(ensureEventStream(await jetstreamManager(offersApi), options)).resolves.toBeUndefined();
    expect((await observer.streams.info(namespace.stream)).config).toMatchObject({ subjects: full.subjects.slice(0, -1), max_bytes: -1, discard: DiscardPolicy.Old });

    const directory = await namespace.connect('contact-directory');
    await ensureEventStream(await jetstreamManager(directory), options);
    expect((await observer.streams.info(namespace.stream)).config).toMatchObject({ subjects: full.subjects, max_bytes: full.max_bytes, discard: DiscardPolicy.New });

    // A limit changed in the configuration is the stream's at contact-directory's next start.
    await ensureEventStream(await jetstreamManager(directory), { ...options, maxBytes: 64 * 1024 ** 2 });
    expect((await observer.streams.info(namespace.stream)).config.max_bytes).toBe(64 * 1024 ** 2);
    // And so is an age changed in the configuration, with the duplicate window it allows.
    await ensureEventStream(await jetstreamManager(directory), { ...options, maxBytes: 64 * 1024 ** 2, maxAgeMs: 300_000 });
    expect((await observer.streams.info(namespace.stream)).config).toMatchObject({ max_age: 300_000 * 1e6, duplicate_window: 300_000 * 1e6 });
    await Promise.all([offersApi.close(), directory.close(), observerConnection.close()]);
  });

  it('never lowers the limit below what the stream holds: JetStream would drop the oldest events to fit', async () => {
    const options = { name: namespace.stream, subjectPrefix: namespace.prefix };
    const observerConnection = await namespace.connect();
    const observer = await jetstreamManager(observerConnection);
    const js = jetstream(observerConnection);
    for (let n = 0; n < 8; n++) await js.publish(`${namespace.prefix}offers.filler`, 'x'.repeat(4096));
    const before = await observer.streams.info(namespace.stream);
    const directory = await namespace.connect('contact-directory');
    await ensureEventStream(await jetstreamManager(directory), { ...options, maxBytes: 8192 });
    const after = await observer.streams.info(namespace.stream);
    expect(after.state.messages).toBe(before.state.messages);
    expect(after.config.max_bytes).toBe(before.config.max_bytes);
    // Once the stream is small enough (its old events aged out), the lower limit is applied.
    await observer.streams.purge(namespace.stream);
    await ensureEventStream(await jetstreamManager(directory), { ...options, maxBytes: 1024 ** 2 });
    expect((await observer.streams.info(namespace.stream)).config.max_bytes).toBe(1024 ** 2);
    await Promise.all([directory.close(), observerConnection.close()]);
  });

  it('holds at most EVENTS_STREAM_MAX_BYTES, 1 GiB unless configured, and refuses new events at the limit', () => {
    expect(eventStreamConfig(eventStreamOptions(loadConfig(ServiceConfig, {})))).toMatchObject({ max_bytes: 1024 ** 3, discard: DiscardPolicy.New });
    expect(eventStreamConfig(eventStreamOptions(loadConfig(ServiceConfig, { EVENTS_STREAM_MAX_BYTES: '8589934592' }))).max_bytes).toBe(8 * 1024 ** 3);
    expect(() => loadConfig(ServiceConfig, { EVENTS_STREAM_MAX_BYTES: '1000' })).toThrow(/EVENTS_STREAM_MAX_BYTES/);
  });

  it('keeps events EVENTS_STREAM_MAX_AGE_DAYS, seven days unless configured, and remembers message ids no longer than it keeps them', () => {
    const week = eventStreamConfig(eventStreamOptions(loadConfig(ServiceConfig, {})));
    expect(week).toMatchObject({ max_age: 7 * 86_400_000 * 1e6, duplicate_window: 10 * 60_000 * 1e6 });
    // A soak's stream: two minutes.
    const soak = eventStreamConfig(eventStreamOptions(loadConfig(ServiceConfig, { EVENTS_STREAM_MAX_AGE_DAYS: String(2 / 1440) })));
    expect(soak).toMatchObject({ max_age: 120_000 * 1e6, duplicate_window: 120_000 * 1e6 });
    expect(() => loadConfig(ServiceConfig, { EVENTS_STREAM_MAX_AGE_DAYS: '0.0001' })).toThrow(/EVENTS_STREAM_MAX_AGE_DAYS/);
  });

  it('keeps one copy unless the configuration asks a cluster for more', () => {
    expect(eventStreamConfig({ name: 'PLATFORM', subjectPrefix: '' }).num_replicas).toBe(1);
    expect(eventStreamConfig(eventStreamOptions(loadConfig(ServiceConfig, { EVENTS_STREAM_REPLICAS: '3' }))).num_replicas).toBe(3);
  });

  it("a service may ensure its own deployment's stream only", async () => {
    const options = { name: `${namespace.stream}_B`, subjectPrefix: `${namespace.prefix}b.` };
    const notifications = await namespace.connect('notification-service');
    // Not this suite's stream name: refused, as any stream the service has no business with.
    await expect(ensureEventStream(await jetstreamManager(notifications), options)).rejects.toThrow(/permission/i);
    await ensureEventStream(await jetstreamManager(notifications), { name: namespace.stream, subjectPrefix: namespace.prefix });
    await notifications.close();
  });
});
