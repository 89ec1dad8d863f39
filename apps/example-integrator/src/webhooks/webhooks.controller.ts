import { Controller, Delete, Get, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ContactSuggestionView } from '@availability/contracts';
import { ProblemException, rawBodyOf } from '@availability/service-core';
import { ExampleIntegratorConfig } from '../config/example-integrator.config.js';
import { loadContacts, parseSuggestionRequest, type SeededContact, suggest } from '../contacts/contacts.js';
import { AnswerOrder, numberedAnswerOf } from './answer-order.js';
import { ReceivedTokenGuard } from './received-token.guard.js';
import { ReceivedStore } from './received.store.js';
import { SignatureGuard } from './signature.guard.js';
import { isTestEvent } from './test-event.js';
import { deduplicationKey, webhookIdOf } from './webhook-identity.js';
import { AuthenticatedView, ReceivedView, ReceivedWebhooksView, UpView } from './webhooks.view.js';

/**
 * The endpoints an integrator implements (spec 4.2). Every one but `GET /test` checks the platform's
 * signature first (SignatureGuard), then acts on the raw body it verified.
 */
@ApiTags('integrator endpoints (spec 4.2)')
@Controller()
export class WebhooksController {
  private readonly contacts: SeededContact[];

  /** The newest answer's sequence per (offer, worker): what a real integrator keeps beside the answer it applied. */
  private readonly answers = new AnswerOrder();

  constructor(
    private readonly received: ReceivedStore,
    config: ExampleIntegratorConfig,
  ) {
    this.contacts = loadContacts(config.INTEGRATOR_CONTACTS, config.INTEGRATOR_CONTACTS_FILE);
  }

  @Get('test')
  @ApiOperation({ summary: 'The service is up (no authentication, spec 5.1)' })
  @ApiOkResponse({ description: 'Up', type: UpView })
  test(): UpView {
    return { status: 'ok' };
  }

  @Get('test/auth')
  @UseGuards(SignatureGuard)
  @ApiOperation({ summary: '200 only when the signature verifies with our secret (spec 5.2, 5.3)' })
  @ApiOkResponse({ description: 'The signature verified', type: AuthenticatedView })
  @ApiResponse({ status: 401, description: 'Signature missing, wrong or stale' })
  testAuth(): AuthenticatedView {
    return { status: 'authenticated' };
  }

  @Post('offer/response')
  @HttpCode(200)
  @UseGuards(SignatureGuard)
  @ApiOperation({ summary: 'Worker Offer Response: a worker applied to or rejected an offer' })
  @ApiOkResponse({ description: 'Acknowledged', type: ReceivedView })
  @ApiResponse({ status: 400, description: 'No webhook-id, or one that names no event (`<eventId>:<organisationId>`)' })
  @ApiResponse({ status: 401, description: 'Signature missing, wrong or stale' })
  offerResponse(@Req() request: FastifyRequest): ReceivedView {
    const received = this.record(request);
    // Calls may arrive out of order: an older answer than one applied is acknowledged, not applied.
    const answer = received ? numberedAnswerOf(rawBodyOf(request).toString('utf8')) : undefined;
    if (answer) this.answers.apply(answer);
    return { received };
  }

  @Get('contact/new/:workerId')
  @UseGuards(SignatureGuard)
  @ApiOperation({ summary: 'Worker Added Contact: a worker added us as a contact to share availability with' })
  @ApiOkResponse({ description: 'Acknowledged', type: ReceivedView })
  @ApiResponse({ status: 400, description: 'No webhook-id, or one that names no event (`<eventId>:<organisationId>`)' })
  @ApiResponse({ status: 401, description: 'Signature missing, wrong or stale' })
  contactNew(@Param('workerId') _workerId: string, @Req() request: FastifyRequest): ReceivedView {
    return { received: this.record(request) };
  }

  @Post('contact-suggestions')
  @HttpCode(200)
  @UseGuards(SignatureGuard)
  @ApiOperation({ summary: 'Contact suggestions for a hirer (spec 2.6 in, 2.7 out)' })
  @ApiOkResponse({ description: 'The suggestions (spec 2.7); an empty array when none match', type: [ContactSuggestionView] })
  contactSuggestions(@Req() request: FastifyRequest): ContactSuggestionView[] {
    const parsed = parseSuggestionRequest(rawBodyOf(request).toString('utf8'));
    if (typeof parsed === 'string') throw ProblemException.field('body', parsed);
    return suggest(this.contacts, parsed);
  }

  /** For demos and tests: what has been received so far (not part of the spec; a real integrator has no such route). */
  @Get('received')
  @UseGuards(ReceivedTokenGuard)
  @ApiOperation({ summary: 'Webhooks received (once per event) and how many repeats were ignored' })
  @ApiOkResponse({ description: 'What has been received', type: ReceivedWebhooksView })
  list(): ReceivedWebhooksView {
    return this.received.list();
  }

  @Delete('received')
  @UseGuards(ReceivedTokenGuard)
  @HttpCode(204)
  clear(): void {
    this.received.clear();
    this.answers.clear();
  }

  /**
   * Records a verified webhook once per event (the body's eventId, else the webhook-id); a repeat is
   * acknowledged but not acted on again. A webhook without a webhook-id of the platform's form is
   * refused: it cannot be told from a replay. A test event is recorded as one (a real integrator
   * would answer 2xx and do nothing else).
   */
  private record(request: FastifyRequest): boolean {
    const id = webhookIdOf(request.headers);
    if ('problem' in id) throw ProblemException.field('webhook-id', id.problem);
    const body = rawBodyOf(request).toString('utf8');
    return this.received.record(deduplicationKey(id.webhookId, body), {
      webhookId: id.webhookId,
      method: request.method,
      path: request.raw.url ?? request.url,
      body,
      receivedAt: new Date().toISOString(),
      test: isTestEvent(request.headers, body),
    });
  }
}
