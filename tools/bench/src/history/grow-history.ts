import pg from 'pg';

/** Who the history belongs to: the benchmark's organisation, its user and workers, and one offer it sent (copied). */
export interface HistoryOwner {
  organisationId: string;
  userId: string;
  workerIds: string[];
  /** An offer sent through the API: the history's offers copy its events, details and place. */
  templateOfferId: string;
  /** The integrator's URL, as the delivery log names it. */
  integratorUrl: string;
}

/** Rows a year of a mid-size customer's history holds, at scale 1. */
export const YEAR_OF_HISTORY = {
  offers: 100_000,
  deliveries: 10_000_000,
  attemptsPerDelivery: 2,
  answersPerOffer: 25,
};

export interface GrownHistory {
  rows: Record<string, number>;
  seconds: number;
}

/**
 * Writes a year of history straight into the tables, as the services would have left it with nothing
 * pruned: offers sent evenly over the past 365 days, each to every worker (recipients), what each
 * worker was told (two notifications each), the pushes, half the answers e-mailed, and the delivery
 * log with two attempts a delivery (a 503, then a 200), one in a thousand a dead letter. Then VACUUM
 * ANALYZE, as autovacuum would have by then. `scale` shrinks it all (0.01 for a quick look).
 */
export async function growHistory(databaseUrl: string, owner: HistoryOwner, scale: number, log: (message: string) => void): Promise<GrownHistory> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`SET synchronous_commit = off; SET maintenance_work_mem = '256MB'`);
    const offers = Math.max(1, Math.round(YEAR_OF_HISTORY.offers * scale));
    const deliveries = Math.max(1, Math.round(YEAR_OF_HISTORY.deliveries * scale));
    const step = async (what: string, sql: string, params: unknown[]) => {
      const at = Date.now();
      const result = await client.query(sql, params);
      log(`  ${what}: ${result.rowCount ?? 0} rows in ${((Date.now() - at) / 1000).toFixed(1)} s`);
    };
    const params = [owner.organisationId, owner.userId, owner.workerIds, owner.templateOfferId, offers];
    await step('offers', OFFERS_SQL, params);
    await step('recipients', RECIPIENTS_SQL, [owner.templateOfferId, owner.workerIds, YEAR_OF_HISTORY.answersPerOffer]);
    await step('the notification read model of offers', NOTIFICATION_OFFERS_SQL, [owner.templateOfferId]);
    await step('worker notifications', WORKER_NOTIFICATIONS_SQL, [owner.templateOfferId]);
    await step('pushes', PUSHES_SQL, [owner.templateOfferId]);
    await step('answers', ANSWERS_SQL, [owner.templateOfferId]);
    await step('deliveries', DELIVERIES_SQL, [owner.organisationId, deliveries, owner.integratorUrl]);
    await step('attempts', ATTEMPTS_SQL, [YEAR_OF_HISTORY.attemptsPerDelivery]);
    const at = Date.now();
    await client.query('VACUUM ANALYZE');
    log(`  VACUUM ANALYZE in ${((Date.now() - at) / 1000).toFixed(1)} s`);
    return { rows: await rowCounts(client), seconds: Math.round((Date.now() - started) / 1000) };
  } finally {
    await client.end();
  }
}

/** The tables that grow with traffic, and their rows. */
export async function rowCounts(client: pg.Client): Promise<Record<string, number>> {
  const tables = ['offers.offer', 'offers.recipient', 'notifications.worker_notification', 'notifications.push_delivery', 'notifications.offer_answer', 'dispatcher.delivery', 'dispatcher.attempt'];
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = Number((await client.query(`SELECT count(*)::bigint AS n FROM ${table}`)).rows[0].n);
  return counts;
}

/** $1 organisation, $2 user, $3 workers, $4 template offer, $5 offers. Offer i was sent (365 days × (1 − i/n)) ago and ended a day later. */
const OFFERS_SQL = `
INSERT INTO offers.offer (id, organisation_id, created_by_user_id, title, details, location_place_id, notify_email_address, events, ends_at, widthdrawn, complete, is_historic, created_at, updated_at, version)
SELECT md5('history-offer-' || i)::uuid, $1::uuid, $2, 'Night shift ' || i, t.details, t.location_place_id, t.notify_email_address, t.events,
       at + interval '1 day', i % 10 = 0, i % 10 <> 0, true, at, at + interval '1 day', 3
FROM generate_series(1, $5::int) i
CROSS JOIN (SELECT details, location_place_id, notify_email_address, events FROM offers.offer WHERE id = $4::uuid) t
CROSS JOIN LATERAL (SELECT now() - interval '365 days' * (1 - i::float8 / $5::int) - interval '2 days' AS at) a
WHERE cardinality($3::uuid[]) > 0`;

/** Every worker was sent every offer; the first $3 of each offer's workers answered. */
const RECIPIENTS_SQL = `
INSERT INTO offers.recipient (offer_id, worker_id, name, response, confirmation, responded_at)
SELECT o.id, w.id, 'Worker ' || w.n, CASE WHEN w.n <= $3::int THEN 'applied' ELSE 'awaiting' END,
       CASE WHEN o.widthdrawn THEN 'withdrawn' WHEN w.n = 1 THEN 'successful' ELSE 'unsuccessful' END,
       CASE WHEN w.n <= $3::int THEN o.created_at + interval '1 hour' END
FROM offers.offer o CROSS JOIN unnest($2::uuid[]) WITH ORDINALITY AS w(id, n)
WHERE o.id <> $1::uuid
ORDER BY o.created_at`;

const NOTIFICATION_OFFERS_SQL = `
INSERT INTO notifications.offer (offer_id, organisation_id, title, created_by_user_id, notify_email_address, closed_at, created_at)
SELECT id, organisation_id, title, created_by_user_id, notify_email_address, ends_at, created_at FROM offers.offer WHERE id <> $1::uuid
ON CONFLICT (offer_id) DO NOTHING`;

/** What each worker was told: the offer, then its outcome. */
const WORKER_NOTIFICATIONS_SQL = `
INSERT INTO notifications.worker_notification (event_id, worker_id, organisation_id, kind, offer_id, title, body, created_at)
SELECT md5(r.offer_id::text || k.kind)::uuid, r.worker_id::text, o.organisation_id, k.kind, r.offer_id, o.title, k.body, o.created_at + k.after
FROM offers.recipient r JOIN offers.offer o ON o.id = r.offer_id
CROSS JOIN (VALUES ('offer.created', 'New work offered', interval '0'), ('offer.unsuccessful', 'This offer went to someone else', interval '1 day')) AS k(kind, body, after)
WHERE r.offer_id <> $1::uuid
ORDER BY o.created_at`;

/** One push a worker notification about an offer, to the worker's one phone. */
const PUSHES_SQL = `
INSERT INTO notifications.push_delivery (event_id, worker_id, device_id, kind, offer_id, status, message_id, attempts, sent_at, created_at, updated_at)
SELECT n.event_id, n.worker_id, md5('history-device-' || n.worker_id)::uuid, n.kind, n.offer_id, 'sent', 'projects/bench/messages/' || n.id, 1, n.created_at, n.created_at, n.created_at
FROM notifications.worker_notification n
WHERE n.kind = 'offer.created' AND n.offer_id <> $1::uuid`;

/** The answers, each e-mailed in its digest. */
const ANSWERS_SQL = `
INSERT INTO notifications.offer_answer (event_id, offer_id, worker_id, response, responded_at, emailed_at, recorded_at)
SELECT md5('history-answer-' || r.id)::uuid, r.offer_id, r.worker_id::text, r.response, r.responded_at, r.responded_at + interval '1 minute', r.responded_at
FROM offers.recipient r
WHERE r.responded_at IS NOT NULL AND r.offer_id <> $1::uuid`;

/** $2 deliveries to the organisation's integrator, evenly over the year; one in a thousand dead. */
const DELIVERIES_SQL = `
INSERT INTO dispatcher.delivery (event_id, organisation_id, event_subject, webhook_id, method, path, body, url, status, attempts, series, last_status_code, created_at, updated_at)
SELECT e.id, $1::text, 'offers.response.recorded', e.id::text || ':' || $1::text, 'POST', '/offer/response',
       json_build_object('eventId', e.id, 'occurredAt', at, 'organisationId', $1::text, 'offerId', md5('history-offer-' || (i % 1000))::uuid,
                         'workerId', md5('history-worker-' || (i % 50))::uuid, 'response', 'applied', 'previousResponse', 'awaiting', 'respondedAt', at)::text,
       $3::text || '/offer/response', CASE WHEN i % 1000 = 0 THEN 'dead' ELSE 'succeeded' END, 2, 0, 200, at, at + interval '30 seconds'
FROM generate_series(1, $2::int) i
CROSS JOIN LATERAL (SELECT md5('history-delivery-' || i)::uuid AS id) e
CROSS JOIN LATERAL (SELECT now() - interval '365 days' * (1 - i::float8 / $2::int) - interval '1 day' AS at) a`;

/** Each delivery's attempts: a 503, then a 200 thirty seconds later. */
const ATTEMPTS_SQL = `
INSERT INTO dispatcher.attempt (delivery_id, attempt_no, series, started_at, duration_ms, status_code, error_kind, error_message, response_excerpt)
SELECT d.id, n, 0, d.created_at + (n - 1) * interval '30 seconds', 12 + n * 7,
       CASE WHEN n < $1 THEN 503 ELSE 200 END, CASE WHEN n < $1 THEN 'http_status' END, CASE WHEN n < $1 THEN 'HTTP 503' END,
       CASE WHEN n < $1 THEN 'busy, try later' ELSE '{"ok":true}' END
FROM dispatcher.delivery d CROSS JOIN generate_series(1, $1::int) n`;
