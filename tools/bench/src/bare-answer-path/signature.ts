import { createHmac } from 'node:crypto';

/** Standard Webhooks `v1`: HMAC-SHA256 over `id.timestamp.body`, base64. */
export function signV1(secret: string, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
