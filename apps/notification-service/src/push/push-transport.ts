/** What a worker is told. `offer.successful` / `offer.unsuccessful` come from one `offers.completed`. */
export const PUSH_KINDS = ['offer.created', 'offer.successful', 'offer.unsuccessful', 'offer.withdrawn'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

export type DevicePlatform = 'ios' | 'android';

/** Where a push goes: an FCM device (iOS, Android) or a browser's Web Push subscription (`web`). */
export type PushPlatform = DevicePlatform | 'web';

/** One push to one device (or Web Push subscription), independent of how it is sent. */
export interface PushMessage {
  /** The FCM token, or the Web Push subscription's endpoint. */
  token: string;
  platform: PushPlatform;
  /** The device's id, or the Web Push subscription's. */
  deviceId: string;
  workerId: string;
  eventId: string;
  kind: PushKind;
  offerId: string;
  organisationId: string;
  title: string;
  body: string;
  /** Opaque to the transport; the app reads it (string values only, as FCM requires). */
  data: Record<string, string>;
  /** Web Push only: the browser's keys the payload is encrypted for (RFC 8291). */
  webPushKeys?: { p256dh: string; auth: string };
}

export interface PushResult {
  success: boolean;
  messageId?: string;
  /** FCM error code as firebase-admin reports it, e.g. `messaging/registration-token-not-registered`. */
  errorCode?: string;
  errorMessage?: string;
  /** The server asked us to wait this long before trying again (Retry-After). */
  retryAfterMs?: number;
}

/** Sends pushes; one result per message, in order. At most 500 messages per call (FCM's sendEach limit). */
export interface PushTransport {
  sendEach(messages: PushMessage[]): Promise<PushResult[]>;
  close?(): Promise<void>;
}

export const PUSH_TRANSPORT = Symbol('PUSH_TRANSPORT');
/** The Web Push channel's transport (web-push/web-push.transport.ts); PUSH_TRANSPORT carries FCM's. */
export const WEB_PUSH_TRANSPORT = Symbol('WEB_PUSH_TRANSPORT');

/** FCM's sendEach limit. */
export const MAX_PUSH_BATCH = 500;

/** A token in logs: enough to correlate, never enough to send to. */
export function maskToken(token: string): string {
  if (token.length <= 12) return '***';
  return `${token.slice(0, 6)}…${token.slice(-4)} (${token.length})`;
}
