import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { DirectoryPattern, EventSubject, type ResolveWebhookTargetReply, WEBHOOK_TARGET_CHANGED_SUBJECT, type WebhookTarget } from '@availability/contracts';
import { ensureEventStream, FIRST_PUBLICATION, FIRST_PUBLICATION_HEADER, SealedBox, sealWebhookTarget } from '@availability/messaging';
import { jetstreamManager } from '@nats-io/jetstream';
import {
  answerRequests,
  createTestDatabase,
  createTestEventNamespace,
  eventually,
  freePort,
  ServiceProcess,
  type TestDatabase,
  type TestEventNamespace,
  type TestServerCertificate,
} from '@availability/testing';

/** What the fake contact-directory answers for each organisation (absent: no base URL). */
export type Targets = Map<string, WebhookTarget>;

/**
 * The test's side of NATS: a fake `directory.webhook-target.resolve` responder speaking RequestReply's
 * wire format, the `webhook-target.changed` broadcast, and publishing events as offers-api's relay does.
 */
export class TestNats {
  readonly targets: Targets = new Map();
  resolveCalls = 0;

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly prefix: string,
  ) {}

  static async start(events: TestEventNamespace): Promise<TestNats> {
    const { prefix, stream } = events;
    const nc = await events.connect();
    await ensureEventStream(await jetstreamManager(nc), { name: stream, subjectPrefix: prefix });
    const nats = new TestNats(nc, jetstream(nc), prefix);
    // Sealed with the directory's key for the dispatcher's, as contact-directory answers.
    const { directory, dispatcher } = events.credentials.sealing;
    const sealing = new SealedBox(directory.seed);
    await answerRequests<{ organisationId: string }, ResolveWebhookTargetReply>(
      nc,
      `${prefix}${DirectoryPattern.ResolveWebhookTarget}`,
      ({ organisationId }) => {
        nats.resolveCalls += 1;
        return sealWebhookTarget(sealing, dispatcher.publicKey, organisationId, nats.targets.get(organisationId) ?? { baseUrl: null, secrets: [] });
      },
    );
    return nats;
  }

  /**
   * As the relay publishes an event: as its transaction commits (`first`, the default), or by its poll
   * (`first: false`), which may publish an event again; `msgId` other than the event id makes JetStream
   * store a copy it would otherwise drop.
   */
  async publish(subject: string, payload: Record<string, unknown>, { msgId = payload.eventId as string, first = true }: { msgId?: string; first?: boolean } = {}): Promise<void> {
    const h = natsHeaders();
    h.set('Nats-Msg-Id', msgId);
    if (first) h.set(FIRST_PUBLICATION_HEADER, FIRST_PUBLICATION);
    await this.js.publish(`${this.prefix}${subject}`, JSON.stringify(payload), { headers: h });
  }

  targetChanged(organisationId: string): void {
    this.nc.publish(`${this.prefix}${WEBHOOK_TARGET_CHANGED_SUBJECT}`, JSON.stringify({ organisationId }));
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}

/** `offers.response.recorded` exactly as offers-api publishes it. */
export function offerResponseEvent(organisationId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const respondedAt = new Date().toISOString();
  return {
    eventId: randomUUID(),
    occurredAt: respondedAt,
    organisationId,
    offerId: randomUUID(),
    workerId: `w_${randomUUID().slice(0, 8)}`,
    response: 'applied',
    previousResponse: 'awaiting',
    respondedAt,
    ...overrides,
  };
}

export function contactAddedEvent(organisationId: string, workerId: string): Record<string, unknown> {
  return { eventId: randomUUID(), occurredAt: new Date().toISOString(), organisationId, contactId: randomUUID(), workerId };
}

export const OFFER_RESPONSE = EventSubject.OfferResponseRecorded;
export const CONTACT_ADDED = EventSubject.ContactAdded;

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** Set when the caller hung up before the answer was sent: milliseconds (monotonic) after the request arrived. */
  hungUpAfterMs?: number;
}

/** A scripted answer: sent after `delayMs`, or once `until` settles (the test decides when the call ends). */
export type Reply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number; until?: Promise<unknown> } | 'hang';

/**
 * A tiny integrator whose answers each test scripts; records every request. It listens on `localhost`
 * and is called by that name, as integrators are (plain http, or https with the certificate given).
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  respond: (request: ReceivedRequest, index: number) => Reply = () => ({ status: 200 });
  private readonly server: Server;
  private readonly hanging = new Set<() => void>();

  private constructor(private readonly certificate?: TestServerCertificate) {
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        const arrived = performance.now();
        res.on('close', () => {
          if (!res.writableEnded) request.hungUpAfterMs = performance.now() - arrived;
        });
        this.requests.push(request);
        const reply = this.respond(request, this.requests.length - 1);
        if (reply === 'hang') {
          const end = () => res.destroy();
          this.hanging.add(end);
          res.on('close', () => this.hanging.delete(end));
          return;
        }
        const send = () => res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
        if (reply.until) void reply.until.then(send, send);
        else if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    };
    this.server = certificate ? createHttpsServer(certificate, handle) : createServer(handle);
    this.server.keepAliveTimeout = 60_000;
  }

  static async start(options: { tls?: TestServerCertificate } = {}): Promise<Receiver> {
    const receiver = new Receiver(options.tls);
    receiver.server.listen(0, 'localhost');
    await once(receiver.server, 'listening');
    return receiver;
  }

  get url(): string {
    return `${this.certificate ? 'https' : 'http'}://localhost:${(this.server.address() as { port: number }).port}`;
  }

  to(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.url.includes(path));
  }

  async close(): Promise<void> {
    for (const end of this.hanging) end();
    this.server.closeAllConnections();
    this.server.close();
  }
}

export class AdminApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call<T = unknown>(method: string, path: string, body?: unknown, token: string | null = this.token): Promise<{ status: number; json: T }> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, json: (text ? JSON.parse(text) : undefined) as T };
  }

  async deliveries(query: Record<string, string>): Promise<DeliveryJson[]> {
    const { json } = await this.call<{ items: DeliveryJson[] }>('GET', `/admin/deliveries?${new URLSearchParams(query)}`);
    return json.items;
  }

  async delivery(eventId: string): Promise<DeliveryJson | undefined> {
    return (await this.deliveries({ eventId }))[0];
  }
}

export interface DeliveryJson {
  id: number;
  eventId: string;
  organisationId: string;
  webhookId: string;
  url: string | null;
  status: string;
  attempts: number;
  series: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  heldSince: string | null;
  attemptLog: Array<{ attemptNo: number; series: number; statusCode: number | null; errorKind: string | null; responseExcerpt: string | null; durationMs: number }>;
}

export const DISPATCHER_ADMIN_TOKEN = 'test-dispatcher-admin-token-0123456789';

/** A dispatcher process on its own database and stream, with the test's NATS side and a scripted receiver. */
export interface DispatcherTestBed {
  database: TestDatabase;
  events: TestEventNamespace;
  nats: TestNats;
  receiver: Receiver;
  dispatcher: ServiceProcess;
  admin: AdminApi;
  /** Waits until the delivery of `eventId` has `status`. */
  settled(eventId: string, status: string, timeoutMs?: number): Promise<DeliveryJson>;
  /**
   * Another dispatcher process on the bed's database and namespace (a second instance, or a restart on
   * `port`), with loopback allowed, the admin token and `env`; the caller stops it.
   */
  startInstance(env: Record<string, string>, port?: number): Promise<ServiceProcess>;
  stop(): Promise<void>;
}

/** `env` adds to (or overrides) loopback allowed, the admin token, the database and the NATS namespace. */
export async function startDispatcherTestBed(env: Record<string, string>): Promise<DispatcherTestBed> {
  const database = await createTestDatabase();
  const events = await createTestEventNamespace();
  const nats = await TestNats.start(events);
  const receiver = await Receiver.start();
  const startInstance = async (instanceEnv: Record<string, string>, port?: number) =>
    ServiceProcess.start({
      app: 'webhook-dispatcher',
      port: port ?? (await freePort()),
      env: { ...events.env, DATABASE_URL: database.url, DISPATCHER_ADMIN_TOKEN, WEBHOOK_ALLOW_LOOPBACK: 'true', ...instanceEnv },
    });
  const dispatcher = await startInstance(env);
  const admin = new AdminApi(dispatcher.url, DISPATCHER_ADMIN_TOKEN);
  return {
    database,
    events,
    nats,
    receiver,
    dispatcher,
    admin,
    settled: (eventId, status, timeoutMs = 15_000) =>
      eventually(async () => {
        const delivery = await admin.delivery(eventId);
        return delivery?.status === status && delivery;
      }, timeoutMs, `delivery of ${eventId} to be ${status}`),
    startInstance,
    async stop() {
      await dispatcher.stop();
      await receiver.close();
      await nats.close();
      await events.dispose();
      await database.drop();
    },
  };
}
