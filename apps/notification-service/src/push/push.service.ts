import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobQueues, QueueName } from '@availability/jobs';
import { counter } from '@availability/service-core';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { DevicesRepository } from '../devices/devices.repository.js';
import { classifyFcmError, retryDelay } from './fcm-errors.js';
import { planPushJobs, type PushJobData, recipientKinds } from './fan-out.js';
import { type NotificationContent, notificationContent, type OfferRef } from './notification-content.js';
import { type DeliveryRecord, PushRepository } from './push.repository.js';
import { maskToken, PUSH_TRANSPORT, type PushKind, type PushMessage, type PushResult, type PushTransport } from './push-transport.js';

/** A push job that must run again later; `retryAfterMs` is the longest wait FCM asked for. */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

function delivery(message: PushMessage): DeliveryRecord {
  return {
    eventId: message.eventId,
    workerId: message.workerId,
    deviceId: message.deviceId,
    kind: message.kind,
    offerId: message.offerId,
    status: 'sent',
    errorCode: null,
    messageId: null,
  };
}

export interface OfferEvent extends OfferRef {
  eventId: string;
}

/**
 * Offer events → pushes. The event handler records what each worker is told and enqueues one job
 * per batch of up to 500 devices (job id from event + batch); each job sends its batch once per
 * device, retries what FCM asks to retry, and deletes tokens FCM reports dead.
 */
@Injectable()
export class PushService implements OnApplicationBootstrap {
  private readonly logger = new Logger('PushService');
  private readonly pushOutcomes = counter('push_messages_total', 'Push messages handed to the transport, by outcome (sent, retrying, failed, token_removed).', ['outcome']);

  constructor(
    private readonly config: NotificationServiceConfig,
    private readonly jobs: JobQueues,
    private readonly devices: DevicesRepository,
    private readonly repository: PushRepository,
    @Inject(PUSH_TRANSPORT) private readonly transport: PushTransport,
  ) {}

  onApplicationBootstrap(): void {
    this.jobs.process<PushJobData>(QueueName.PushNotification, (job) => this.runJob(job), {
      concurrency: this.config.PUSH_WORKER_CONCURRENCY,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, error?: Error) =>
          retryDelay(attemptsMade, this.config.PUSH_BACKOFF_MS, error instanceof RetryLaterError ? error.retryAfterMs : undefined),
      },
    });
  }

  /** Handles one offer event: idempotent, so a redelivered event changes nothing. */
  async fanOut(event: OfferEvent, groups: Array<{ kind: PushKind; workerIds: readonly string[] }>): Promise<number> {
    const kinds = recipientKinds(groups);
    const contents = new Map<PushKind, NotificationContent>();
    const rows = [...kinds].map(([workerId, kind]) => {
      const content = this.content(contents, kind, event);
      return { workerId, kind, title: content.title, body: content.body };
    });
    await this.repository.recordWorkerNotifications(event, rows);
    const devices = await this.devices.forWorkers([...kinds.keys()]);
    const plan = planPushJobs(event, kinds, devices);
    await this.jobs.addBulk(
      QueueName.PushNotification,
      plan.map(({ jobId, data }) => ({
        name: 'push',
        data,
        opts: {
          jobId,
          attempts: this.config.PUSH_ATTEMPTS,
          backoff: { type: 'fcm' },
          removeOnComplete: { age: 24 * 3600, count: 20_000 },
          removeOnFail: { age: 7 * 24 * 3600 },
        },
      })),
    );
    this.logger.log(`event ${event.eventId}: ${kinds.size} workers, ${devices.length} devices, ${plan.length} push jobs`);
    return plan.length;
  }

  async runJob(job: Job<PushJobData>): Promise<void> {
    const data = job.data;
    const pending = await this.repository.claimDevices(job.id ?? `${data.eventId}.${data.batchIndex}`, data, data.targets);
    if (pending.length === 0) return;
    const kindByDevice = new Map(data.targets.map((t) => [t.d, t.k]));
    const contents = new Map<PushKind, NotificationContent>();
    const messages: PushMessage[] = pending.map((device) => {
      const kind = kindByDevice.get(device.deviceId) as PushKind;
      const content = this.content(contents, kind, data);
      return {
        token: device.token,
        platform: device.platform,
        deviceId: device.deviceId,
        workerId: device.workerId,
        eventId: data.eventId,
        kind,
        offerId: data.offerId,
        organisationId: data.organisationId,
        title: content.title,
        body: content.body,
        data: content.data,
      };
    });

    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    let results: PushResult[];
    try {
      results = await this.transport.sendEach(messages);
      if (results.length !== messages.length) throw new Error(`transport answered ${results.length} of ${messages.length} messages`);
    } catch (error) {
      // Nothing known to be sent: hand the claims back so the retry sends them.
      const status = lastAttempt ? 'failed' : 'retrying';
      await this.repository.recordDeliveries(messages.map((m) => ({ ...delivery(m), status, errorCode: 'send-failed' })));
      this.pushOutcomes.inc({ outcome: status }, messages.length);
      throw new RetryLaterError(`sendEach failed: ${(error as Error).message}`);
    }

    const records: DeliveryRecord[] = [];
    const deadTokens: Array<{ id: string; token: string }> = [];
    let retrying = 0;
    let retryAfterMs: number | undefined;
    messages.forEach((message, index) => {
      const result = results[index];
      const record: DeliveryRecord = { ...delivery(message), messageId: result.messageId ?? null };
      if (!result.success) {
        record.errorCode = result.errorCode ?? 'unknown';
        const action = classifyFcmError(result.errorCode, result.errorMessage);
        if (action === 'remove-token') {
          record.status = 'token_removed';
          deadTokens.push({ id: message.deviceId, token: message.token });
          this.logger.log(`removing device ${message.deviceId} (token ${maskToken(message.token)}): ${result.errorCode}`);
        } else if (action === 'retry' && !lastAttempt) {
          record.status = 'retrying';
          retrying += 1;
          if (result.retryAfterMs !== undefined) retryAfterMs = Math.max(retryAfterMs ?? 0, result.retryAfterMs);
        } else {
          record.status = 'failed';
        }
      }
      records.push(record);
    });
    await this.devices.deleteTokens(deadTokens);
    await this.repository.recordDeliveries(records);
    for (const record of records) this.pushOutcomes.inc({ outcome: record.status });
    if (retrying > 0) {
      throw new RetryLaterError(`${retrying} of ${messages.length} pushes of event ${data.eventId} to retry`, retryAfterMs);
    }
  }

  private content(cache: Map<PushKind, NotificationContent>, kind: PushKind, offer: OfferRef & { eventId: string }): NotificationContent {
    let content = cache.get(kind);
    if (!content) {
      content = notificationContent(kind, offer, offer.eventId);
      cache.set(kind, content);
    }
    return content;
  }
}
