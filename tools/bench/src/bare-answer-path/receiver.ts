import { timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { computeStandardWebhookSignature } from '@availability/webhook-signing';
import { required, textOf } from '../process-env.js';

/**
 * The least an integrator can do: check the `v1` signature over the raw body (the platform's own
 * signing function, so both sides pay the same for an HMAC), answer 204 (401 when it
 * does not match). `GET /received` says how many verified webhooks arrived.
 */
const secret = required('SECRET');
let received = 0;

createServer((request, response) => {
  void textOf(request).then((body) => {
    if (request.method === 'GET') return response.end(String(received));
    const header = (name: string) => String(request.headers[name] ?? '');
    const expected = Buffer.from(`v1,${computeStandardWebhookSignature(secret, header('webhook-id'), Number(header('webhook-timestamp')), body)}`);
    const given = Buffer.from(header('webhook-signature'));
    const valid = given.length === expected.length && timingSafeEqual(given, expected);
    if (valid) received += 1;
    response.statusCode = valid ? 204 : 401;
    response.end();
  });
}).listen(Number(required('PORT')), '127.0.0.1');
