import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobQueues, QueueName } from '@availability/jobs';
import { counter } from '@availability/service-core';
import { NotificationServiceConfig } from '../config/notification-service.config.js';
import { DevicesRepository } from '../devices/devices.repository.js';
import { WebPushSubscriptionsRepository } from '../web-push/web-push-subscriptions.repository.js';
import { retryDelay } from './fcm-errors.js';
import { type PlannedPushJob, planPushJobs, type PushJobData, recipientKinds } from './fan-out.js';
import { type NotificationContent, notificationContent, type OfferRef } from './notification-content.js';
import { OfferStageRule } from './offer-stage.js';
import { type DeliveryRecord, type PendingDevice, PushRepository } from './push.repository.js';
import { channelOf, type PushChannel, pushOutcome } from './push-outcome.js';
import { maskToken, PUSH_TRANSPORT, type PushKind, type PushMessage, type PushResult, type PushTransport, WEB_PUSH_TRANSPORT } from './push-transport.js';

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
 * device, retries what FCM asks to retry, and deletes tokens FCM reports dead. A worker's Web Push
 * subscriptions are devices of a third kind in the same batches, claims and rules: sent through
 * the Web Push transport, and deleted when their push service says they are gone (404, 410).
 */
@Injectable()
export class PushService implements OnApplicationBootstrap {
  private readonly logger = new Logger('PushService');
  private readonly pushOutcomes = counter('push_messages_total', 'Push messages handed to the transport, by outcome (sent, retrying, failed, token_removed), or superseded (not sent).', ['outcome']);
  private readonly stages = new OfferStageRule();

  constructor(
    private readonly config: NotificationServiceConfig,
    private readonly jobs: JobQueues,
    private readonly devices: DevicesRepository,
    private readonly subscriptions: WebPushSubscriptionsRepository,
    private readonly repository: PushRepository,
    @Inject(PUSH_TRANSPORT) private readonly transport: PushTransport,
    @Inject(WEB_PUSH_TRANSPORT) private readonly webPush: PushTransport,
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
    const workerIds = [...kinds.keys()];
    const [fcmDevices, browsers] = await Promise.all([this.devices.forWorkers(workerIds), this.subscriptions.forWorkers(workerIds)]);
    const devices = [...fcmDevices, ...browsers];
    const plan = planPushJobs(event, kinds, devices);
    await this.queue(plan);
    this.logger.log(`event ${event.eventId}: ${kinds.size} workers, ${devices.length} devices, ${plan.length} push jobs`);
    return plan.length;
  }

  /** Queues push jobs; a job id BullMQ still keeps (queued, running, or done within a day) is not queued again. */
  async queue(jobs: readonly PlannedPushJob[]): Promise<void> {
    await this.jobs.addBulk(
      QueueName.PushNotification,
      jobs.map(({ jobId, data }) => ({
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
  }

  async runJob(job: Job<PushJobData>): Promise<void> {
    const data = job.data;
    const abandonedBefore = new Date(Date.now() - this.config.JOB_RECOVERY_AFTER_MS);
    const claimed = await this.repository.claimDevices(job.id ?? `${data.eventId}.${data.batchIndex}`, data, data.targets, abandonedBefore);
    if (claimed.length === 0) return;
    const kindByDevice = new Map(data.targets.map((t) => [t.d, t.k]));
    const { pending, superseded } = await this.decideStages(data, claimed, kindByDevice);
    if (superseded.length > 0) {
      await this.repository.recordDeliveries(superseded);
      for (const record of superseded) this.pushOutcomes.inc({ outcome: record.status });
    }
    if (pending.length === 0) return;
    const contents = new Map<PushKind, NotificationContent>();
    const messages: PushMessage[] = pending.map((device) => {
      const kind = kindByDevice.get(device.deviceId) as PushKind;
      const content = this.content(contents, kind, data);
      return {
        token: device.token,
        platform: device.platform,
        ...(device.p256dh && device.auth ? { webPushKeys: { p256dh: device.p256dh, auth: device.auth } } : {}),
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
    const channels = (['fcm', 'web-push'] as const)
      .map((channel) => ({ channel, messages: messages.filter((m) => channelOf(m.platform) === channel) }))
      .filter((c) => c.messages.length > 0);
    const sent = await Promise.all(channels.map(({ channel, messages: batch }) => this.send(channel, batch)));

    const records: DeliveryRecord[] = [];
    const deadTokens: Array<{ id: string; token: string }> = [];
    const goneSubscriptions: Array<{ id: string; endpoint: string }> = [];
    let retrying = 0;
    let retryAfterMs: number | undefined;
    const failures: string[] = [];
    for (const { channel, messages: batch, results, error } of sent) {
      if (error) failures.push(`${channel} sendEach failed: ${error.message}`);
      batch.forEach((message, index) => {
        const result = results?.[index];
        const status = pushOutcome(channel, result ?? 'thrown', lastAttempt);
        const record: DeliveryRecord = { ...delivery(message), status, messageId: result?.messageId ?? null };
        // Nothing known to be sent when the transport threw: the claims go back for the retry.
        if (!result) record.errorCode = 'send-failed';
        else if (!result.success) record.errorCode = result.errorCode ?? 'unknown';
        if (status === 'token_removed') {
          if (channel === 'web-push') goneSubscriptions.push({ id: message.deviceId, endpoint: message.token });
          else deadTokens.push({ id: message.deviceId, token: message.token });
          const what = channel === 'web-push' ? 'Web Push subscription' : 'device';
          this.logger.log(`removing ${what} ${message.deviceId} (${maskToken(message.token)}): ${result?.errorCode}`);
        } else if (status === 'retrying') {
          retrying += 1;
          if (result?.retryAfterMs !== undefined) retryAfterMs = Math.max(retryAfterMs ?? 0, result.retryAfterMs);
        }
        records.push(record);
      });
    }
    await this.devices.deleteTokens(deadTokens);
    await this.subscriptions.deleteEndpoints(goneSubscriptions);
    await this.repository.recordDeliveries(records);
    for (const record of records) this.pushOutcomes.inc({ outcome: record.status });
    if (failures.length > 0) throw new RetryLaterError(failures.join('; '), retryAfterMs);
    if (retrying > 0) {
      throw new RetryLaterError(`${retrying} of ${messages.length} pushes of event ${data.eventId} to retry`, retryAfterMs);
    }
  }

  /**
   * Splits the claimed devices by OfferStageRule: the workers for whom this event's stage of the offer
   * wins get their pushes; the others' are `superseded`, never sent (a later push about the offer
   * was recorded first).
   */
  private async decideStages(
    data: PushJobData,
    claimed: PendingDevice[],
    kindByDevice: ReadonlyMap<string, PushKind>,
  ): Promise<{ pending: PendingDevice[]; superseded: DeliveryRecord[] }> {
    const stageByWorker = new Map<string, number>();
    for (const device of claimed) stageByWorker.set(device.workerId, this.stages.stageOrder(kindByDevice.get(device.deviceId) as PushKind));
    const winners = await this.repository.claimStage(data, [...stageByWorker].map(([workerId, stageOrder]) => ({ workerId, stageOrder })));
    const pending = claimed.filter((device) => winners.has(device.workerId));
    const superseded = claimed
      .filter((device) => !winners.has(device.workerId))
      .map((device): DeliveryRecord => ({
        eventId: data.eventId,
        workerId: device.workerId,
        deviceId: device.deviceId,
        kind: kindByDevice.get(device.deviceId) as PushKind,
        offerId: data.offerId,
        status: 'superseded',
        errorCode: null,
        messageId: null,
      }));
    return { pending, superseded };
  }

  /** One channel's batch through its transport; a throw (or a short answer) means nothing is known to be sent. */
  private async send(channel: PushChannel, messages: PushMessage[]): Promise<{ channel: PushChannel; messages: PushMessage[]; results?: PushResult[]; error?: Error }> {
    const transport = channel === 'web-push' ? this.webPush : this.transport;
    try {
      const results = await transport.sendEach(messages);
      if (results.length !== messages.length) throw new Error(`transport answered ${results.length} of ${messages.length} messages`);
      return { channel, messages, results };
    } catch (error) {
      return { channel, messages, error: error as Error };
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
