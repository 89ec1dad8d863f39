import type { TokenMessage } from 'firebase-admin/messaging';
import { collapseKey } from './notification-content.js';
import type { PushMessage } from './push-transport.js';

export interface FcmMessageOptions {
  /** How long FCM/APNs keep trying an offline device. */
  ttlSeconds: number;
  now: Date;
}

/** Android notification channel the worker app creates for offers (high importance). */
export const ANDROID_CHANNEL_ID = 'offers';

/**
 * One push as firebase-admin's `TokenMessage`: a visible notification on both platforms, high
 * priority (offers are time-critical), the same expiry on both, a collapse key per offer,
 * and string-only data for the app.
 */
export function toFcmMessage(message: PushMessage, options: FcmMessageOptions): TokenMessage {
  const key = collapseKey(message.offerId);
  const expiresAt = Math.floor(options.now.getTime() / 1000) + options.ttlSeconds;
  return {
    token: message.token,
    notification: { title: message.title, body: message.body },
    data: stringData(message.data),
    android: {
      priority: 'high',
      ttl: options.ttlSeconds * 1000,
      collapseKey: key,
      notification: { channelId: ANDROID_CHANNEL_ID, tag: key, sound: 'default' },
    },
    apns: {
      headers: {
        'apns-priority': '10',
        'apns-push-type': 'alert',
        'apns-collapse-id': key,
        'apns-expiration': String(expiresAt),
      },
      payload: {
        aps: { alert: { title: message.title, body: message.body }, sound: 'default', threadId: message.offerId },
      },
    },
  };
}

/** FCM rejects non-string data values; drop undefined ones and stringify the rest. */
export function stringData(data: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined || value === null) continue;
    out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return out;
}
