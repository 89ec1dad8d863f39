import { Logger } from '@nestjs/common';
import { fromSetting, parseSettingJson, readSettingFile } from '@availability/service-core';
import { type App, cert, type Credential, deleteApp, initializeApp, type ServiceAccount } from 'firebase-admin/app';
import { getMessaging, type Messaging, type SendResponse } from 'firebase-admin/messaging';
import { parseRetryAfter } from './fcm-errors.js';
import { toFcmMessage } from './fcm-message.js';
import { MAX_PUSH_BATCH, type PushMessage, type PushResult, type PushTransport } from './push-transport.js';

/**
 * `FCM_SERVICE_ACCOUNT_JSON`, the JSON itself (starts with `{`) or a path to the file, read and checked
 * by firebase-admin as the start begins. A setting that cannot serve stops the start as a
 * ConfigValidationError whose message never quotes the JSON: it holds the account's private key.
 */
export function serviceAccountCredential(setting: string): { projectId: string; credential: Credential } {
  return fromSetting(() => {
    const trimmed = setting.trim();
    if (!trimmed) throw new Error('must be set with PUSH_TRANSPORT=fcm');
    const parsed = parseSettingJson(trimmed.startsWith('{') ? trimmed : readSettingFile(trimmed));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('must be a JSON object (a Firebase service account)');
    const fields = parsed as Record<string, unknown>;
    const account: ServiceAccount = {
      projectId: String(fields.project_id ?? fields.projectId ?? ''),
      clientEmail: String(fields.client_email ?? fields.clientEmail ?? ''),
      privateKey: String(fields.private_key ?? fields.privateKey ?? ''),
    };
    if (!account.projectId || !account.clientEmail || !account.privateKey) throw new Error('must hold project_id, client_email and private_key');
    try {
      return { projectId: account.projectId, credential: cert(account) };
    } catch {
      throw new Error('holds a private key firebase-admin cannot read');
    }
  }, 'FCM_SERVICE_ACCOUNT_JSON');
}

/**
 * Push through Firebase Cloud Messaging (iOS via APNs and Android): one `sendEach` per batch of up
 * to 500. firebase-admin itself retries a 503 honouring Retry-After (its default retry config); what
 * still fails comes back per message and is classified by the caller.
 */
export class FcmPushTransport implements PushTransport {
  private readonly logger = new Logger('FcmPushTransport');

  constructor(
    private readonly messaging: Messaging,
    private readonly ttlSeconds: number,
    private readonly app?: App,
  ) {}

  static fromServiceAccount(serviceAccountSetting: string, ttlSeconds: number): FcmPushTransport {
    const { projectId, credential } = serviceAccountCredential(serviceAccountSetting);
    const app = initializeApp({ credential, projectId }, `notification-service-${process.pid}`);
    return new FcmPushTransport(getMessaging(app), ttlSeconds, app);
  }

  async sendEach(messages: PushMessage[]): Promise<PushResult[]> {
    if (messages.length === 0) return [];
    if (messages.length > MAX_PUSH_BATCH) throw new Error(`at most ${MAX_PUSH_BATCH} messages per sendEach`);
    const now = new Date();
    const batch = await this.messaging.sendEach(messages.map((message) => toFcmMessage(message, { ttlSeconds: this.ttlSeconds, now })));
    if (batch.failureCount > 0) this.logger.debug(`sendEach: ${batch.successCount} sent, ${batch.failureCount} failed`);
    return batch.responses.map(toPushResult);
  }

  async close(): Promise<void> {
    if (this.app) await deleteApp(this.app).catch(() => undefined);
  }
}

/** firebase-admin's per-message outcome as ours. */
export function toPushResult(response: SendResponse): PushResult {
  if (response.success) return { success: true, messageId: response.messageId };
  const error = response.error as (Error & { code?: string; httpResponse?: { headers?: Record<string, string> } }) | undefined;
  return {
    success: false,
    errorCode: error?.code ?? 'messaging/unknown-error',
    errorMessage: error?.message,
    retryAfterMs: parseRetryAfter(error?.httpResponse?.headers?.['retry-after']),
  };
}
