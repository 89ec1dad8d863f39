import { randomUUID } from 'node:crypto';
import { fromSetting, parseSettingJson } from '@availability/service-core';
import type { PushMessage, PushResult, PushTransport } from './push-transport.js';

/** How the recording transport fails a token: an FCM error code, optionally only the first `times` sends. */
export interface RecordedFailure {
  code: string;
  /** Fail this many sends, then succeed; absent means always. */
  times?: number;
  retryAfterMs?: number;
}

export interface RecordedPush extends PushMessage {
  at: string;
  success: boolean;
  messageId?: string;
  errorCode?: string;
}

const MESSAGES: Record<string, string> = {
  'messaging/registration-token-not-registered': 'Requested entity was not found.',
  'messaging/invalid-registration-token': 'Invalid registration token provided.',
  'messaging/invalid-argument': 'The registration token is not a valid FCM registration token',
  'messaging/server-unavailable': 'The server could not process the request in time.',
};

const MAX_RECORDS = 200_000;

/**
 * A push transport for development, tests and benchmarks: records every message it is handed
 * (with the time it was handed over) and answers success, or the FCM error configured for a token.
 */
export class RecordingPushTransport implements PushTransport {
  private records: RecordedPush[] = [];
  private readonly failures = new Map<string, RecordedFailure>();

  /** The failures it started with (RECORDING_PUSH_FAILURES); `resetFailures` goes back to them. */
  constructor(private readonly configuredFailures: Record<string, string | RecordedFailure> = {}) {
    this.setFailures(configuredFailures);
  }

  /** `RECORDING_PUSH_FAILURES`: a JSON object token → code or {code, times, retryAfterMs}. */
  static parseFailures(json: string): Record<string, string | RecordedFailure> {
    if (!json.trim()) return {};
    return fromSetting(() => {
      const parsed = parseSettingJson(json);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('must be a JSON object');
      return parsed as Record<string, string | RecordedFailure>;
    }, 'RECORDING_PUSH_FAILURES');
  }

  setFailures(failures: Record<string, string | RecordedFailure>): void {
    for (const [token, failure] of Object.entries(failures)) {
      if (failure === null) this.failures.delete(token);
      else this.failures.set(token, typeof failure === 'string' ? { code: failure } : { ...failure });
    }
  }

  resetFailures(): void {
    this.failures.clear();
    this.setFailures(this.configuredFailures);
  }

  async sendEach(messages: PushMessage[]): Promise<PushResult[]> {
    const at = new Date().toISOString();
    return messages.map((message) => {
      const failure = this.failures.get(message.token);
      let result: PushResult;
      if (failure && (failure.times === undefined || failure.times > 0)) {
        if (failure.times !== undefined) failure.times -= 1;
        result = { success: false, errorCode: failure.code, errorMessage: MESSAGES[failure.code] ?? failure.code, retryAfterMs: failure.retryAfterMs };
      } else {
        result = { success: true, messageId: `projects/recording/messages/${randomUUID()}` };
      }
      this.remember({ ...message, at, success: result.success, messageId: result.messageId, errorCode: result.errorCode });
      return result;
    });
  }

  log(filter: { offerId?: string; eventId?: string; token?: string } = {}): RecordedPush[] {
    return this.records.filter(
      (r) => (!filter.offerId || r.offerId === filter.offerId) && (!filter.eventId || r.eventId === filter.eventId) && (!filter.token || r.token === filter.token),
    );
  }

  clear(): void {
    this.records = [];
  }

  private remember(record: RecordedPush): void {
    this.records.push(record);
    if (this.records.length > MAX_RECORDS) this.records.splice(0, this.records.length - MAX_RECORDS);
  }
}
