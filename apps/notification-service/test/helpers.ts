import { randomUUID } from 'node:crypto';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { OfferCreatedEvent } from '@availability/contracts';
import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@availability/service-core';
import { createTestDatabase, type TestDatabase, type TestEventNamespace } from '@availability/testing';
import { NOTIFICATIONS_SCHEMA } from '../src/devices/devices.repository.js';
import { NOTIFICATIONS_MIGRATIONS } from '../src/migrations/index.js';

/** Publishes events to a test namespace's stream exactly as the services' outbox relays do. */
export class EventPublisher {
  private constructor(
    readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly prefix: string,
  ) {}

  static async connect(events: TestEventNamespace): Promise<EventPublisher> {
    const nc = await events.connect();
    return new EventPublisher(nc, jetstream(nc), events.prefix);
  }

  /** `msgId` defaults to the eventId; give another to get past JetStream's de-duplication (a true redelivery). */
  async publish(subject: string, payload: { eventId: string }, msgId: string = payload.eventId): Promise<void> {
    await this.js.publish(`${this.prefix}${subject}`, JSON.stringify(payload), { msgID: msgId });
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}

export function envelope(organisationId: string) {
  return { eventId: randomUUID(), occurredAt: new Date().toISOString(), organisationId };
}

/** An offer of one night shift to `workerIds`, as offers-api publishes it. */
export function offerCreated(organisationId: string, workerIds: string[], title = 'Night pickers'): OfferCreatedEvent {
  return {
    ...envelope(organisationId),
    offerId: randomUUID(),
    title,
    createdByUserId: randomUUID(),
    notifyEmailAddress: null,
    events: [{ start: '2030-01-01T22:00:00.000Z', end: '2030-01-02T06:00:00.000Z' }],
    workerIds,
  };
}

export async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

export interface HttpResult<T = unknown> {
  status: number;
  json: T;
}

export async function call<T = unknown>(baseUrl: string, method: string, path: string, token?: string, body?: unknown): Promise<HttpResult<T>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : undefined) as T };
}

/** A fresh database with notification-service's schema, and a connection pool to it, for tests of its repositories. */
export async function notificationsDatabase(applicationName: string): Promise<{ database: TestDatabase; dataSource: DataSource }> {
  const database = await createTestDatabase();
  const dataSource = await createDataSource({ url: database.url, schema: NOTIFICATIONS_SCHEMA, migrations: NOTIFICATIONS_MIGRATIONS, poolSize: 6, applicationName }).initialize();
  await migrate(dataSource, NOTIFICATIONS_SCHEMA);
  return { database, dataSource };
}
