import { classifyWebPushError } from '../web-push/web-push-errors.js';
import { classifyFcmError, type FailureAction } from './fcm-errors.js';
import type { DeliveryStatus } from './push.repository.js';
import type { PushPlatform, PushResult } from './push-transport.js';

/** The channel a push goes through: FCM for devices, Web Push for browsers. */
export type PushChannel = 'fcm' | 'web-push';

export function channelOf(platform: PushPlatform): PushChannel {
  return platform === 'web' ? 'web-push' : 'fcm';
}

/** What a failure means, by the rules of the channel it came from. */
export function classifyPushFailure(channel: PushChannel, result: PushResult): FailureAction {
  return channel === 'web-push' ? classifyWebPushError(result.errorCode) : classifyFcmError(result.errorCode, result.errorMessage);
}

/**
 * One push's recorded outcome: `sent`; `token_removed` when the token or subscription is dead (the
 * caller deletes it); `retrying` when the channel asks to try again and attempts are left; else `failed`.
 * A transport that threw for the whole batch (`thrown`) is retried, as nothing is known to be sent.
 */
export function pushOutcome(channel: PushChannel, result: PushResult | 'thrown', lastAttempt: boolean): DeliveryStatus {
  if (result === 'thrown') return lastAttempt ? 'failed' : 'retrying';
  if (result.success) return 'sent';
  const action = classifyPushFailure(channel, result);
  if (action === 'remove-token') return 'token_removed';
  if (action === 'retry' && !lastAttempt) return 'retrying';
  return 'failed';
}
