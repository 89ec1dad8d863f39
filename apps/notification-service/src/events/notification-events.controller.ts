import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  EventSubject,
  type InviteCreatedEvent,
  type OfferCompletedEvent,
  type OfferCreatedEvent,
  type OfferResponseRecordedEvent,
  type OfferWithdrawnEvent,
  type WebhookEndpointDisabledEvent,
} from '@availability/contracts';
import { JetStreamContext } from '@availability/messaging';
import { EmailService } from '../email/email.service.js';
import { PushService } from '../push/push.service.js';

/**
 * The events notification-service consumes (its bus role, BUS_ROLES), each checked against its schema
 * before it arrives here: offers, invites and disabled webhooks → pushes and e-mails. The event is
 * acked once its handler is done, and comes back (with a higher delivery count) when it fails.
 */
@Controller()
export class NotificationEventsController {
  constructor(
    private readonly push: PushService,
    private readonly email: EmailService,
  ) {}

  @EventPattern<EventSubject>(EventSubject.OfferCreated)
  async onOfferCreated(@Payload() event: OfferCreatedEvent): Promise<void> {
    await this.email.onOfferCreated(event);
    await this.push.fanOut(event, [{ kind: 'offer.created', workerIds: event.workerIds }]);
  }

  @EventPattern<EventSubject>(EventSubject.OfferCompleted)
  async onOfferCompleted(@Payload() event: OfferCompletedEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.push.fanOut(event, [
      { kind: 'offer.successful', workerIds: event.successfulWorkerIds },
      { kind: 'offer.unsuccessful', workerIds: event.unsuccessfulWorkerIds },
    ]);
    await this.email.onOfferClosed(
      event,
      { kind: 'completed', successfulWorkerIds: event.successfulWorkerIds, unsuccessfulWorkerIds: event.unsuccessfulWorkerIds },
      context.getDeliveryCount(),
    );
  }

  @EventPattern<EventSubject>(EventSubject.OfferWithdrawn)
  async onOfferWithdrawn(@Payload() event: OfferWithdrawnEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.push.fanOut(event, [{ kind: 'offer.withdrawn', workerIds: event.workerIds }]);
    await this.email.onOfferClosed(event, { kind: 'withdrawn', workerIds: event.workerIds }, context.getDeliveryCount());
  }

  @EventPattern<EventSubject>(EventSubject.OfferResponseRecorded)
  async onOfferResponseRecorded(@Payload() event: OfferResponseRecordedEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.email.onAnswer(event, context.getDeliveryCount());
  }

  @EventPattern<EventSubject>(EventSubject.InviteCreated)
  async onInviteCreated(@Payload() event: InviteCreatedEvent): Promise<void> {
    await this.email.onInviteCreated(event);
  }

  @EventPattern<EventSubject>(EventSubject.WebhookEndpointDisabled)
  async onWebhookEndpointDisabled(@Payload() event: WebhookEndpointDisabledEvent): Promise<void> {
    await this.email.onWebhookEndpointDisabled(event);
  }
}
