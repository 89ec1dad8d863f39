import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
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
  it('any service creates the stream; only contact-directory adds missing subjects, the others carry on', async () => {
    const options = { name: namespace.stream, subjectPrefix: namespace.prefix };
    const observerConnection = await namespace.connect();
    const observer = await jetstreamManager(observerConnection);
    const full = eventStreamConfig(options);
    // An older stream: it lacks the last subject family.
    await observer.streams.add({ ...full, subjects: full.subjects.slice(0, -1) });

    const offersApi = await namespace.connect('offers-api');
    await expect(ensureEventStream(await jetstreamManager(offersApi), options)).resolves.toBeUndefined();
    expect((await observer.streams.info(namespace.stream)).config.subjects).toEqual(full.subjects.slice(0, -1));

    const directory = await namespace.connect('contact-directory');
    await ensureEventStream(await jetstreamManager(directory), options);
    expect((await observer.streams.info(namespace.stream)).config.subjects).toEqual(full.subjects);
    await Promise.all([offersApi.close(), directory.close(), observerConnection.close()]);
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
