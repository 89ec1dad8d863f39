import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { type ContactAddedEvent, EventSubject, type OfferResponseRecordedEvent } from '@availability/contracts';
import { contactAddedCall, offerResponseCall } from '../domain/webhook-call.js';
import { EventIntake } from './event-intake.js';

/**
 * The events that call integrators (the dispatcher's bus role, BUS_ROLES), each checked against its
 * schema before it arrives here. The event is acked once its delivery's first attempt is recorded.
 */
@Controller()
export class WebhookEventsController {
  constructor(private readonly intake: EventIntake) {}

  @EventPattern<EventSubject>(EventSubject.OfferResponseRecorded)
  async onOfferResponseRecorded(@Payload() event: OfferResponseRecordedEvent): Promise<void> {
    await this.intake.handle(offerResponseCall(event));
  }

  @EventPattern<EventSubject>(EventSubject.ContactAdded)
  async onContactAdded(@Payload() event: ContactAddedEvent): Promise<void> {
    await this.intake.handle(contactAddedCall(event));
  }
}
