import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { NotificationPattern, type SendSignInLinksReply } from '@availability/contracts';
import { EmailService } from '../email/email.service.js';

/**
 * The requests notification-service answers (its bus role, BUS_ROLES). Requests arrive as `unknown`
 * and are checked before anything is queued; a malformed one is answered with a failure.
 */
@Controller()
export class NotificationRequestsController {
  constructor(private readonly email: EmailService) {}

  @MessagePattern(NotificationPattern.SendSignInLinks)
  sendSignInLinks(@Payload() request: unknown): Promise<SendSignInLinksReply> {
    return this.email.sendSignInLinks(request);
  }
}
