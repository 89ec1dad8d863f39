import { setTimeout as sleep } from 'node:timers/promises';
import type { JetStreamManager } from '@nats-io/jetstream';
import { EventSubject } from '@availability/contracts';
import { queryDatabase } from '@availability/testing';
import type { CheckFigures } from './report.js';

/** Waits until the relay has published every outbox row; returns how long that took. */
export async function drainOutbox(databaseUrl: string, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const [{ count }] = await queryDatabase<{ count: number }>(databaseUrl, 'SELECT count(*)::int AS count FROM offers.outbox WHERE published_at IS NULL');
    if (count === 0) return Date.now() - started;
    await sleep(50);
  }
  return Date.now() - started;
}

/** No event lost or duplicated: every offer offers-api stored is in the stream exactly once. */
export async function checkEvents(options: {
  databaseUrl: string;
  jsm: JetStreamManager;
  stream: string;
  subject: string;
  acceptedPosts: number;
  inFlightAtStop: number;
  workers: number;
}): Promise<CheckFigures[]> {
  await drainOutbox(options.databaseUrl);
  const [rows] = await queryDatabase<{ offers: number; recipients: number; unpublished: number }>(
    options.databaseUrl,
    `SELECT (SELECT count(*)::int FROM offers.offer) AS offers, (SELECT count(*)::int FROM offers.recipient) AS recipients,
            (SELECT count(*)::int FROM offers.outbox WHERE published_at IS NULL) AS unpublished`,
  );
  const info = await options.jsm.streams.info(options.stream, { subjects_filter: options.subject });
  const inStream = info.state.subjects?.[options.subject] ?? 0;
  return [
    { name: 'Outbox empty after drain', detail: `${rows.unpublished} unpublished rows`, pass: rows.unpublished === 0 },
    {
      name: 'Every offer stored once',
      detail: `${rows.offers} offers stored for ${options.acceptedPosts} answered 201 (+ up to ${options.inFlightAtStop} in flight at stops), ${rows.recipients} recipients`,
      pass:
        rows.offers >= options.acceptedPosts &&
        rows.offers <= options.acceptedPosts + options.inFlightAtStop &&
        rows.recipients === rows.offers * options.workers,
    },
    {
      name: 'Every offers.created event in the stream',
      detail: `${inStream} messages on ${EventSubject.OfferCreated} for ${rows.offers} offers`,
      pass: inStream === rows.offers,
    },
  ];
}
