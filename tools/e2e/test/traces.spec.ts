import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { issuePortalUserToken, offerBody, OffersClient, PortalClient, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { eventually, startTestPlatform, type TestPlatform } from '@availability/testing';
import { type CollectedSpan, OtlpCollector, OtlpSpanKind } from '../src/otlp-collector.js';

/**
 * Traces across services. The services run as separate processes, so an exporter inside the test
 * process could not see their spans: the test runs an in-memory OTLP collector (OTLP/HTTP with JSON
 * bodies, what the services' exporter sends) and points the services' OTEL_EXPORTER_OTLP_ENDPOINT at
 * it. A worker's answer must come back as one trace, each span the child of the one before:
 * offers-api's HTTP request → its outbox relay's publish → the dispatcher's consume → its delivery
 * attempt → the call to the integrator → the integrator's own request span (the example integrator
 * traces too: it could only be a child of the call if the call's traceparent reached it).
 */
const INTEGRATOR_SECRET = 'traces-integrator-secret-0123456789';
const HEX32 = /^[0-9a-f]{32}$/;

let collector: OtlpCollector;

beforeAll(async () => {
  collector = await OtlpCollector.start();
});

afterAll(async () => {
  await collector?.close();
});

describe('tracing on: one answer, one trace', () => {
  let platform: TestPlatform;
  let agency: SeededOrganisation;

  beforeAll(async () => {
    platform = await startTestPlatform(['contact-directory', 'offers-api', 'webhook-dispatcher', 'example-integrator'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      INTEGRATOR_SECRET,
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    });
    agency = await seedOrganisation(platform.admin, { name: 'Traced Staffing', workers: 1 });
    const portalToken = (await issuePortalUserToken(platform.url('contact-directory'), platform.env.DIRECTORY_ADMIN_TOKEN, agency.user.id)).token;
    await new PortalClient(platform.url('contact-directory'), portalToken).saveWebhook(platform.url('example-integrator'), INTEGRATOR_SECRET);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('connects offers-api’s request, the relay’s publish, the dispatcher’s consume and attempt, the call and the integrator’s request, in parent order', async () => {
    const sender = new OffersClient(platform.url('offers-api'), agency.apiKey);
    const created = await sender.createOffer(offerBody(agency.user.id, [agency.workers[0].id]));
    expect(created.status).toBe(201);
    const answered = await sender.as(agency.workers[0].token).answer(created.text, 'applied');
    expect(answered.status).toBe(200);
    // The request id of a request without its own x-request-id is its trace id.
    const traceId = answered.headers.get('x-request-id') ?? '';
    expect(traceId).toMatch(HEX32);

    // Each service exports its spans in batches every few seconds: wait until the chain from the
    // integrator's request span, the trace's last, reaches back to a root.
    const chainOf = (spans: CollectedSpan[]): CollectedSpan[] => {
      const chain: CollectedSpan[] = [];
      let span = spans.find((candidate) => candidate.service === 'example-integrator');
      while (span) {
        chain.unshift(span);
        const parentSpanId = span.parentSpanId;
        span = parentSpanId ? spans.find((candidate) => candidate.spanId === parentSpanId) : undefined;
      }
      return chain;
    };
    const chain = await eventually(
      () => {
        const found = chainOf(collector.trace(traceId));
        return found.length > 0 && found[0].parentSpanId === undefined && found;
      },
      30_000,
      'the answer’s trace, from the integrator’s span back to its root',
    );

    expect(chain.map(({ service, name, kind }) => ({ service, name, kind }))).toEqual([
      { service: 'offers-api', name: 'PUT /worker/offers/:id/response', kind: OtlpSpanKind.Server },
      { service: 'offers-api', name: 'publish offers.response.recorded', kind: OtlpSpanKind.Producer },
      { service: 'webhook-dispatcher', name: 'process offers.response.recorded', kind: OtlpSpanKind.Consumer },
      { service: 'webhook-dispatcher', name: 'webhook attempt', kind: OtlpSpanKind.Internal },
      { service: 'webhook-dispatcher', name: 'POST', kind: OtlpSpanKind.Client },
      { service: 'example-integrator', name: 'POST /offer/response', kind: OtlpSpanKind.Server },
    ]);
    expect(chain.every((span) => span.traceId === traceId)).toBe(true);
    expect(chain[0].attributes).toMatchObject({ 'http.route': '/worker/offers/:id/response', 'http.response.status_code': 200 });
    expect(chain[1].attributes).toMatchObject({ 'messaging.system.name': 'nats', 'messaging.operation.type': 'send' });
    expect(chain[2].attributes).toMatchObject({ 'messaging.system.name': 'nats', 'messaging.consumer.group.name': 'webhook-dispatcher', 'messaging.nats.message.delivery_count': 1 });
    expect(chain[3].attributes).toMatchObject({ 'webhook.attempt': 1, 'webhook.event_subject': 'offers.response.recorded', 'webhook.outcome': 'done' });
    expect(chain[4].attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200, 'url.full': `${platform.url('example-integrator')}/offer/response` });
    expect(chain.every((span) => span.status.code !== 2)).toBe(true);
    // The event message id is the event's: publish and consume name the same message.
    expect(chain[2].attributes['messaging.message.id']).toBe(chain[1].attributes['messaging.message.id']);
    expect(collector.refused).toEqual([]);
  });
});

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform(['contact-directory', 'offers-api'], {
      // Where the SDK's own variable would send spans, were an exporter started after all.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
      LOG_LEVEL: 'info',
    });
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  });

  it('exports no span, and the logs still carry the trace id the response names, the caller’s x-request-id next to it', async () => {
    const before = collector.spans.length;
    const agency = await seedOrganisation(platform.admin, { name: 'Untraced Staffing', workers: 1 });
    const sender = new OffersClient(platform.url('offers-api'), agency.apiKey);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const continued = await sender.createOffer(offerBody(agency.user.id, [agency.workers[0].id]), { traceparent, 'x-request-id': 'caller-order-77' });
    expect(continued.status).toBe(201);
    expect(continued.headers.get('x-request-id')).toBe('caller-order-77');
    const started = await sender.getOffer(continued.text);
    const traceId = started.headers.get('x-request-id') ?? '';
    expect(traceId).toMatch(HEX32);

    const logLines = () =>
      platform.services['offers-api']
        .logs()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { traceId?: string; requestId?: string; req?: { url?: string } });
    const logged = await eventually(() => {
      const lines = logLines();
      const ofCaller = lines.find((line) => line.traceId === '0af7651916cd43dd8448eb211c80319c');
      const ofStarted = lines.find((line) => line.traceId === traceId);
      return ofCaller && ofStarted && { ofCaller, ofStarted };
    }, 10_000, 'the requests’ log lines');
    expect(logged.ofCaller).toMatchObject({ traceId: '0af7651916cd43dd8448eb211c80319c', requestId: 'caller-order-77' });
    expect(logged.ofStarted.requestId).toBeUndefined();

    // The batch exporter would have sent by now (every 5 s); nothing was started to send anything.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(collector.spans.length).toBe(before);
    expect(collector.refused).toEqual([]);
  });
});
