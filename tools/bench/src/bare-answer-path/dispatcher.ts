import { createServer } from 'node:http';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Agent, request } from 'undici';
import { computeStandardWebhookSignature } from '@availability/webhook-signing';
import { required } from '../process-env.js';

/**
 * The least a dispatcher can do: each event from a durable JetStream consumer → one POST signed
 * Standard Webhooks `v1` (HMAC-SHA256, by the platform's own signing function) to the receiver over a kept-alive undici pool → acked once
 * the receiver has answered. No attempt log, retries, endpoint state or framework.
 */
const nats = await connect({ servers: required('NATS_URL') });
const consumer = await jetstream(nats).consumers.get(required('STREAM'), required('CONSUMER'));
const target = required('TARGET_URL');
const secret = required('SECRET');
const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000 });

createServer((_request, response) => response.end('ok')).listen(Number(required('PORT')), '127.0.0.1');

for await (const message of await consumer.consume({ max_messages: 100 })) {
  const body = message.string();
  const id = message.headers?.get('Nats-Msg-Id') ?? '';
  const unixSeconds = Math.floor(Date.now() / 1000);
  void request(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(unixSeconds), 'webhook-signature': `v1,${computeStandardWebhookSignature(secret, id, unixSeconds, body)}` },
    body,
    dispatcher: agent,
  })
    .then((answer) => answer.body.dump())
    .then(() => message.ack());
}
