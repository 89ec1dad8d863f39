import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EventSubject, type SignInRequestedEvent } from '@availability/contracts';
import { SignInMailer } from './sign-in-mailer.js';

/**
 * The event contact-directory consumes itself (its bus role): sign-in requests, answered already, are
 * worked on here. Acked once the e-mail is handed over (or there is none to send), back later when
 * that fails.
 */
@Controller()
export class SignInRequestsController {
  constructor(private readonly mailer: SignInMailer) {}

  @EventPattern<EventSubject>(EventSubject.SignInRequested)
  async onSignInRequested(@Payload() request: SignInRequestedEvent): Promise<void> {
    await this.mailer.send(request);
  }
}
