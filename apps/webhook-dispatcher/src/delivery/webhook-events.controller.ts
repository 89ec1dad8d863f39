import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { JetStreamContext } from '@availability/messaging';
import { type ContactAddedEvent, EventSubject, type OfferResponseRecordedEvent } from '@availability/contracts';
import { contactAddedCall, offerResponseCall } from '../domain/webhook-call.js';
import { EventIntake } from './event-intake.js';

/**
 * The events that call integrators (the dispatcher's bus role, BUS_ROLES), each checked against its
 * schema before it arrives here. The event is acked once its delivery's first attempt is recorded;
 * whether it may have been seen before decides whether its delivery is looked for first (EventIntake).
 */
@Controller()
export class WebhookEventsController {
  constructor(private readonly intake: EventIntake) {}

  @EventPattern<EventSubject>(EventSubject.OfferResponseRecorded)
  async onOfferResponseRecorded(@Payload() event: OfferResponseRecordedEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.intake.handle(offerResponseCall(event), context.isFirstSight());
  }

  @EventPattern<EventSubject>(EventSubject.ContactAdded)
  async onContactAdded(@Payload() event: ContactAddedEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.intake.handle(contactAddedCall(event), context.isFirstSight());
  }
}
