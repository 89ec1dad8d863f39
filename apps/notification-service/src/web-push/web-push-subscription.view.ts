import { ApiProperty } from '@nestjs/swagger';
import { maskToken } from '../push/push-transport.js';
import type { WebPushSubscriptionRow } from './web-push-subscriptions.repository.js';

/** A Web Push subscription as the worker app sees it: never its keys, and its endpoint masked. */
export class WebPushSubscriptionView {
  @ApiProperty({ format: 'uuid', example: '0b8c8f0e-3f64-4f0c-9a55-2f7b1f3f9c11' })
  id: string;

  @ApiProperty({ description: 'The push service (the endpoint’s origin)', example: 'https://fcm.googleapis.com' })
  pushService: string;

  @ApiProperty({
    description: 'The endpoint masked like device tokens: its first 6 and last 4 characters and its length',
    example: 'https:…FBzMt (152)',
  })
  endpoint: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: 'string', description: 'When the browser ends the subscription, if it said', example: null })
  expirationTime: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-24T22:25:19.665Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', description: 'Last registration of the endpoint', example: '2026-11-24T22:25:19.668Z' })
  updatedAt: string;
}

export class WebPushSubscriptionsView {
  @ApiProperty({ type: [WebPushSubscriptionView] })
  subscriptions: WebPushSubscriptionView[];
}

export class WebPushKeyView {
  @ApiProperty({
    description: 'The VAPID application server key: pass it to `pushManager.subscribe({ userVisibleOnly: true, applicationServerKey })` (base64url, 65 bytes)',
    example: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U',
  })
  publicKey: string;
}

export function webPushSubscriptionView(row: WebPushSubscriptionRow): WebPushSubscriptionView {
  return {
    id: row.id,
    pushService: new URL(row.endpoint).origin,
    endpoint: maskToken(row.endpoint),
    expirationTime: row.expirationTime ? new Date(row.expirationTime).toISOString() : null,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
