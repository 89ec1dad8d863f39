import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import { required, textOf } from '../process-env.js';

/**
 * The least an answer service can do: `PUT /<offerId>/<workerId>` with `{"response": …}` → one
 * statement that records the answer and its outbox row together → 200 → the event published to
 * JetStream with its id as `Nats-Msg-Id`, acknowledged, its outbox row marked a moment later with
 * the others of that moment (as offers-api's relay does). No authentication, validation or framework.
 */
const ANSWER_SQL = `WITH answer AS (
    INSERT INTO answer (offer_id, worker_id, response) VALUES ($1, $2, $3)
    ON CONFLICT (offer_id, worker_id) DO UPDATE SET response = excluded.response RETURNING 1)
  INSERT INTO outbox (event_id, subject, payload) SELECT $4, $5, $6::json FROM answer`;
const MARK_DELAY_MS = 100;

const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: 4, application_name: 'bench-bare-answer-server' });
const nats = await connect({ servers: required('NATS_URL') });
const js = jetstream(nats);
const subject = required('SUBJECT');

let toMark: string[] = [];
let markTimer: NodeJS.Timeout | undefined;
function markSoon(eventId: string): void {
  toMark.push(eventId);
  markTimer ??= setTimeout(() => {
    markTimer = undefined;
    const ids = toMark;
    toMark = [];
    // The ids are this process's own UUIDs.
    void pool.query(`SET LOCAL synchronous_commit = off; UPDATE outbox SET published_at = now() WHERE event_id IN ('${ids.join("','")}')`);
  }, MARK_DELAY_MS);
}

createServer((request, response) => {
  void textOf(request).then(async (body) => {
    if (request.method === 'GET') return response.end('ok');
    const [, offerId, workerId] = (request.url ?? '').split('/');
    const { response: answer } = JSON.parse(body) as { response: string };
    const eventId = randomUUID();
    const payload = JSON.stringify({ eventId, occurredAt: new Date().toISOString(), offerId, workerId, response: answer });
    await pool.query({ name: 'answer', text: ANSWER_SQL, values: [offerId, workerId, answer, eventId, subject, payload] });
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ offerId, response: answer }));
    // After the answer, as offers-api publishes after its commit.
    setImmediate(() => void js.publish(subject, payload, { msgID: eventId }).then(() => markSoon(eventId)));
  });
}).listen(Number(required('PORT')), '127.0.0.1');
