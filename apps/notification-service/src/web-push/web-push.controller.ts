import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Res, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { isUuid } from '@availability/contracts';
import { CurrentWorker, WorkerAuthGuard } from '@availability/auth';
import { ProblemException } from '@availability/service-core';
import { subscriptionProblems, type SubscriptionRules } from './subscription-rules.js';
import type { VapidKeys } from './vapid.js';
import { WebPushSubscriptionDto } from './web-push-subscription.dto.js';
import { WebPushKeyView, webPushSubscriptionView, WebPushSubscriptionsView, WebPushSubscriptionView } from './web-push-subscription.view.js';
import { WebPushSubscriptionsRepository } from './web-push-subscriptions.repository.js';


/** What the controller needs of the configuration: the keys (absent: Web Push off) and the endpoint rules. */
export interface WebPushSettings {
  vapid: VapidKeys | undefined;
  rules: SubscriptionRules;
}

export const WEB_PUSH_SETTINGS = Symbol('WEB_PUSH_SETTINGS');

/** The worker web app subscribes the browser it runs in to Web Push, so offers reach it too. */
@ApiTags('worker app')
@ApiSecurity('bearer')
@ApiResponse({ status: 401, description: 'Missing, invalid or revoked worker token' })
@Controller('worker')
@UseGuards(WorkerAuthGuard)
export class WebPushController {
  constructor(
    private readonly subscriptions: WebPushSubscriptionsRepository,
    @Inject(WEB_PUSH_SETTINGS) private readonly settings: WebPushSettings,
  ) {}

  @Get('web-push/key')
  @ApiOperation({ summary: 'The VAPID application server key to subscribe the browser with' })
  @ApiOkResponse({ description: 'The key', type: WebPushKeyView })
  @ApiResponse({ status: 404, description: 'Web Push is not configured on this platform (development without VAPID keys)' })
  key(): WebPushKeyView {
    return { publicKey: this.vapid().publicKey };
  }

  @Put('web-push-subscriptions')
  @ApiOperation({ summary: 'Register this browser’s Web Push subscription (idempotent on its endpoint)' })
  @ApiCreatedResponse({ description: 'Registered', type: WebPushSubscriptionView })
  @ApiOkResponse({ description: 'Already registered; keys and expiry updated', type: WebPushSubscriptionView })
  @ApiResponse({ status: 400, description: 'Not a usable subscription; `errors` names each field (endpoint, keys.p256dh, keys.auth, expirationTime)' })
  @ApiResponse({ status: 404, description: 'Web Push is not configured on this platform' })
  @ApiResponse({
    status: 409,
    description: 'Another worker holds this endpoint: the app unsubscribes the browser (PushSubscription.unsubscribe), subscribes again and registers the new one',
  })
  async register(
    @CurrentWorker() workerId: string,
    @Body() dto: WebPushSubscriptionDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebPushSubscriptionView> {
    this.vapid();
    const errors = subscriptionProblems(dto, this.settings.rules);
    if (Object.keys(errors).length > 0) throw ProblemException.validation(errors);
    const registration = await this.subscriptions.upsert(workerId, {
      endpoint: dto.endpoint,
      p256dh: dto.keys.p256dh,
      auth: dto.keys.auth,
      expirationTime: typeof dto.expirationTime === 'number' ? new Date(dto.expirationTime) : null,
    });
    if (registration.taken) {
      throw ProblemException.conflict(
        'web-push-subscription-taken',
        'This push endpoint is registered to another worker. Unsubscribe the browser, subscribe again and register the new subscription.',
      );
    }
    reply.status(registration.created ? 201 : 200);
    return webPushSubscriptionView(registration.subscription);
  }

  @Get('web-push-subscriptions')
  @ApiOperation({ summary: 'My Web Push subscriptions' })
  @ApiOkResponse({ description: 'My subscriptions (endpoints masked, keys never shown)', type: WebPushSubscriptionsView })
  async list(@CurrentWorker() workerId: string): Promise<WebPushSubscriptionsView> {
    return { subscriptions: (await this.subscriptions.forWorker(workerId)).map(webPushSubscriptionView) };
  }

  @Delete('web-push-subscriptions/:subscriptionId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Stop pushes to one of my browsers (e.g. on sign-out)' })
  @ApiNoContentResponse({ description: 'Removed; no body' })
  @ApiResponse({ status: 404, description: 'No such subscription of mine' })
  async remove(@CurrentWorker() workerId: string, @Param('subscriptionId') subscriptionId: string): Promise<void> {
    if (!isUuid(subscriptionId) || !(await this.subscriptions.delete(workerId, subscriptionId))) throw ProblemException.notFound('The Web Push subscription');
  }

  private vapid(): VapidKeys {
    if (!this.settings.vapid) throw ProblemException.notFound('Web Push (no VAPID keys are configured)');
    return this.settings.vapid;
  }
}
