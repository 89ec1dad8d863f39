import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jetstreamManager } from '@nats-io/jetstream';
import { EventSubject } from '@availability/contracts';
import {
  expectStatus,
  issuePortalUserToken,
  offerBody,
  OffersClient,
  PortalClient,
  request,
  type SeededOrganisation,
  seedOrganisation,
} from '@availability/platform-client';
import {
  eventually,
  freePort,
  queryDatabase,
  ServiceProcess,
  SmtpSink,
  startTestPlatform,
  TestIntegrator,
  type TestNatsCluster,
  type TestPlatform,
} from '@availability/testing';

/**
 * The platform on a three-node NATS cluster, its stream and consumers kept on all three
 * (EVENTS_STREAM_REPLICAS=3), every service as two instances. While offers and answers arrive
 * through both offers-api instances, the node leading the stream is killed (kill -9) and brought
 * back, and then one instance of every service is killed and brought back. Afterwards: every offer
 * and answer the platform accepted is stored and published once, every push of every accepted offer
 * reached the push transport once per device (a repeat only where the instance that sent it died
 * before recording it, resent under the same event id), and every accepted answer's webhook reached
 * the integrator, one body and one webhook-id per answer.
 */
const APPS = ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher'] as const;
type App = (typeof APPS)[number];
const SECRET = 'cluster-integrator-secret-0123456789';
/** How long offers and answers are sent for, and when the failures happen within that time. */
const LOAD_MS = 30_000;
const KILL_STREAM_LEADER_AT = 5_000;
const RESTART_NODE_AT = 10_000;
const KILL_INSTANCES_AT = 15_000;
const RESTART_INSTANCES_AT = 20_000;
/** Between two offers (each also answers the previous one): about three offers and three answers a second. */
const TICK_MS = 300;
/**
 * Long enough for what a killed instance held to come back: notification-service's events after
 * JetStream's ack wait (30 s), its push jobs once their BullMQ lock expires (30 s, checked every 30 s).
 */
const RECOVERY_MS = 110_000;

interface RecordedPush {
  eventId: string;
  deviceId: string;
  offerId: string;
  messageId?: string;
  success: boolean;
}

/** One process run of an instance: a restart is a new run, with an empty push log. */
interface Run {
  instance: ServiceProcess;
  number: number;
}

/**
 * The pushes the instances' recording transports were handed, gathered from their logs (each
 * process keeps its own, and loses it when it dies), with the run that sent each.
 */
class PushLogs {
  readonly seen = new Map<string, { push: RecordedPush; run: Run }>();

  async collect(runs: Run[]): Promise<void> {
    await Promise.all(
      runs.map(async (run) => {
        const log = await request<{ pushes: RecordedPush[] }>(run.instance.url, 'GET', '/dev/push-log').catch(() => undefined);
        for (const push of log?.json?.pushes ?? []) if (push.messageId) this.seen.set(push.messageId, { push, run });
      }),
    );
  }
}

let platform: TestPlatform;
let cluster: TestNatsCluster;
let mail: SmtpSink;
let integrator: TestIntegrator;
const instances = {} as Record<App, ServiceProcess[]>;
const runs = new Map<ServiceProcess, Run>();
let org: SeededOrganisation;
let deviceIds: string[];

const acceptedOffers: Array<{ offerId: string; at: number }> = [];
const acceptedAnswers: Array<{ offerId: string; workerId: string }> = [];
/** Requests the platform refused or did not answer at first (then accepted on a retry, or never: gaveUp). */
const retried: string[] = [];
const gaveUp: string[] = [];
/** When the failures began and ended. */
const outages = { node: { from: 0, to: 0 }, instances: { from: 0, to: 0 } };
const pushLogs = new PushLogs();
/** The notification-service run that was killed, when its log was last read, and when it died. */
let killedPushRun: { run: Run; lastReadAt: number; killedAt: number } | undefined;
let killedStreamLeader: string | undefined;
/** The services' connections on the node that was killed, which had to move to another node. */
let movedConnections: string[] = [];

/** The instance of each service killed and restarted: first and second instances alike. */
const VICTIM: Record<App, 0 | 1> = { 'contact-directory': 0, 'offers-api': 1, 'notification-service': 1, 'webhook-dispatcher': 0 };
const victimsOf = () => Object.fromEntries(APPS.map((app) => [app, instances[app][VICTIM[app]]])) as Record<App, ServiceProcess>;
const survivorsOf = () => Object.fromEntries(APPS.map((app) => [app, instances[app][1 - VICTIM[app]]])) as Record<App, ServiceProcess>;

const currentRuns = (app: App) => instances[app].map((instance) => runs.get(instance) as Run);

async function startInstance(app: App): Promise<ServiceProcess> {
  const instance = await ServiceProcess.start({ app, port: await freePort(), env: platform.env });
  runs.set(instance, { instance, number: 1 });
  return instance;
}

/**
 * Sends a request to one instance after the other until one accepts it, as a client behind a load
 * balancer that retries would (a POST with the same Idempotency-Key, so a retry never makes a second offer).
 */
async function accepted<T>(what: string, attemptCall: (instance: ServiceProcess) => Promise<T | undefined>, pool: ServiceProcess[], first: number, attempts = 40): Promise<T | undefined> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const result = await attemptCall(pool[(first + attempt) % pool.length]).catch(() => undefined);
    if (result !== undefined) return result;
    if (attempt === 0) retried.push(what);
    await sleep(250);
  }
  gaveUp.push(what);
  return undefined;
}

beforeAll(async () => {
  mail = await SmtpSink.start();
  integrator = await TestIntegrator.start({ secret: SECRET });
  platform = await startTestPlatform(
    [...APPS],
    {
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      PUSH_TRANSPORT: 'recording',
      SMTP_URL: mail.url,
      EMAIL_DIGEST_WINDOW_MS: '1000',
      WEBHOOK_BACKOFF_BASE_MS: '200',
      // What a killed dispatcher held is taken up again within seconds rather than half a minute.
      WEBHOOK_INTAKE_ACK_WAIT_MS: '5000',
      WEBHOOK_LOCK_DURATION_MS: '5000',
    },
    { natsCluster: true },
  );
  cluster = platform.events.cluster as TestNatsCluster;
  for (const app of APPS) {
    runs.set(platform.services[app], { instance: platform.services[app], number: 1 });
    instances[app] = [platform.services[app]];
  }
  // The second instances, contact-directory's first: the others ask it for credentials as they start.
  instances['contact-directory'].push(await startInstance('contact-directory'));
  const seconds = await Promise.all(APPS.slice(1).map((app) => startInstance(app)));
  APPS.slice(1).forEach((app, index) => instances[app].push(seconds[index]));

  org = await seedOrganisation(platform.admin, { name: 'Cluster Staffing', workers: 2 });
  const portalToken = await issuePortalUserToken(platform.url('contact-directory'), platform.env.DIRECTORY_ADMIN_TOKEN, org.user.id);
  await new PortalClient(platform.url('contact-directory'), portalToken.token).saveWebhook(integrator.url, SECRET);
  deviceIds = [];
  for (const [index, worker] of org.workers.entries()) {
    const registered = await request<{ id: string }>(platform.url('notification-service'), 'PUT', '/worker/devices', {
      body: { token: `cluster-device-${index}-${randomUUID()}`, platform: index % 2 ? 'ios' : 'android', appVersion: '1.0.0' },
      headers: { authorization: `Bearer ${worker.token}` },
    });
    deviceIds.push(expectStatus(registered, 201).json.id);
  }
}, 180_000);

afterAll(async () => {
  console.log(
    `cluster run: ${acceptedOffers.length} offers and ${acceptedAnswers.length} answers accepted, ${retried.length} of them on a retry; ` +
      `stream leader ${killedStreamLeader} killed with ${movedConnections.length} service connections (${movedConnections.join(', ')}); ${pushLogs.seen.size} pushes seen, ${integrator?.calls.length ?? 0} integrator calls`,
  );
  await Promise.all(Object.values(instances).flatMap((pair) => pair.slice(1).map((instance) => instance.stop())));
  await platform?.stop();
  integrator?.close();
  await mail?.close();
});

describe('the platform on a three-node NATS cluster, every service twice', () => {
  it('accepts offers and answers through the loss of the stream leader and of one instance of each service', async () => {
    const nc = await platform.events.connect();
    try {
      expect((await (await jetstreamManager(nc)).streams.info(platform.events.stream)).config.num_replicas).toBe(3);
    } finally {
      await nc.close();
    }
    const start = Date.now();
    const at = (ms: number) => sleep(Math.max(0, start + ms - Date.now()));

    const failures = (async () => {
      await at(KILL_STREAM_LEADER_AT);
      const leader = await cluster.streamLeader(platform.events.stream);
      killedStreamLeader = cluster.nodes[leader].name;
      movedConnections = (await cluster.clientNames(leader)).filter((name) => (APPS as readonly string[]).includes(name));
      outages.node.from = Date.now();
      await cluster.kill(leader, 'SIGKILL');
      await at(RESTART_NODE_AT);
      outages.node.to = Date.now();
      await cluster.restart(leader);

      await at(KILL_INSTANCES_AT);
      const victims = victimsOf();
      // The push log of the one that dies is lost with it: read it just before.
      const pushRun = runs.get(victims['notification-service']) as Run;
      const lastReadAt = Date.now();
      await pushLogs.collect([pushRun]);
      outages.instances.from = Date.now();
      await Promise.all(Object.values(victims).map((victim) => victim.kill()));
      killedPushRun = { run: pushRun, lastReadAt, killedAt: Date.now() };

      await at(RESTART_INSTANCES_AT);
      outages.instances.to = Date.now();
      await Promise.all(
        Object.values(victims).map(async (victim) => {
          // A new run before the process starts, so no push of the new process is taken for the old one's.
          runs.set(victim, { instance: victim, number: (runs.get(victim) as Run).number + 1 });
          await victim.start();
        }),
      );
    })();

    const load = (async () => {
      let previous: string | undefined;
      for (let tick = 0; Date.now() - start < LOAD_MS; tick++) {
        const due = start + (tick + 1) * TICK_MS;
        const idempotencyKey = randomUUID();
        const body = offerBody(org.user.id, org.workers.map((worker) => worker.id));
        const creating = accepted(
          `offer ${tick}`,
          async (instance) => {
            const created = await new OffersClient(instance.url, org.apiKey).createOffer(body, { 'idempotency-key': idempotencyKey });
            return created.status === 201 ? created.text : undefined;
          },
          instances['offers-api'],
          tick,
        );
        const answered = previous;
        const answering = answered
          ? accepted(
              `answer ${tick - 1}`,
              async (instance) => ((await new OffersClient(instance.url, org.workers[0].token).answer(answered, 'applied')).status === 200 ? true : undefined),
              instances['offers-api'],
              tick + 1,
            )
          : undefined;
        const [offerId, answer] = await Promise.all([creating, answering]);
        if (offerId) acceptedOffers.push({ offerId, at: Date.now() });
        if (answered && answer) acceptedAnswers.push({ offerId: answered, workerId: org.workers[0].id });
        previous = offerId;
        await pushLogs.collect(currentRuns('notification-service'));
        await sleep(Math.max(0, due - Date.now()));
      }
    })();

    await Promise.all([failures, load]);
    expect(killedStreamLeader).toBeDefined();
    // Every offer and answer was accepted in the end, some on a retry (those in flight to a killed instance).
    expect(gaveUp).toEqual([]);
    expect(acceptedAnswers).toHaveLength(acceptedOffers.length - 1);
    // Offers were accepted while the node was down and while the instances were.
    const acceptedDuring = ({ from, to }: { from: number; to: number }) => acceptedOffers.filter((offer) => offer.at >= from && offer.at <= to).length;
    expect(acceptedDuring(outages.node)).toBeGreaterThan(0);
    expect(acceptedDuring(outages.instances)).toBeGreaterThan(0);
  }, 120_000);

  it('stores every accepted offer and answer, and publishes each once', async () => {
    await cluster.streamReplicasCurrent(platform.events.stream);
    for (const { offerId } of acceptedOffers) {
      const offer = expectStatus(await new OffersClient(instances['offers-api'][0].url, org.apiKey).getOffer(offerId), 200).json;
      const answered = acceptedAnswers.some((answer) => answer.offerId === offerId);
      expect(offer.recipients.find((recipient) => recipient.workerId === org.workers[0].id)?.response).toBe(answered ? 'applied' : 'awaiting');
    }
    const created = await eventually(async () => {
      const events = await platform.events.messages(EventSubject.OfferCreated);
      return events.length >= acceptedOffers.length && events;
    }, 30_000, 'every accepted offer in the stream');
    expect(created.map((event) => event.data.offerId).sort()).toEqual(acceptedOffers.map((offer) => offer.offerId).sort());
    const answers = await platform.events.messages(EventSubject.OfferResponseRecorded);
    expect(answers.map((event) => `${event.data.offerId}/${event.data.workerId}`).sort()).toEqual(acceptedAnswers.map((a) => `${a.offerId}/${a.workerId}`).sort());
    expect(new Set([...created, ...answers].map((event) => event.data.eventId)).size).toBe(created.length + answers.length);
  }, 60_000);

  it('hands every push of every accepted offer to the transport once per device', async () => {
    const created = await platform.events.messages(EventSubject.OfferCreated);
    const eventOf = new Map(created.map((event) => [event.data.offerId as string, event.data.eventId as string]));
    const wanted = acceptedOffers.flatMap(({ offerId }) => deviceIds.map((deviceId) => ({ offerId, eventId: eventOf.get(offerId) as string, deviceId })));
    const killed = killedPushRun as NonNullable<typeof killedPushRun>;

    // A push the killed instance sent after its log was last read is known only by the message id
    // the transport gave it, which that instance recorded before it died.
    const recordedBy = async () =>
      new Map(
        (
          await queryDatabase<{ event_id: string; device_id: string; status: string; message_id: string | null; sent_at: Date | null }>(
            platform.database.url,
            'SELECT event_id, device_id, status, message_id, sent_at FROM notifications.push_delivery',
          )
        ).map((row) => [`${row.event_id}/${row.device_id}`, row]),
      );
    const sentUnseenByKilledRun = (row: { status: string; message_id: string | null; sent_at: Date | null } | undefined) =>
      row?.status === 'sent' &&
      row.message_id !== null &&
      !pushLogs.seen.has(row.message_id) &&
      row.sent_at !== null &&
      row.sent_at.getTime() >= killed.lastReadAt - 1 &&
      row.sent_at.getTime() <= killed.killedAt + 1;

    const pushesOf = () => {
      const by = new Map<string, Array<{ push: RecordedPush; run: Run }>>();
      for (const seen of pushLogs.seen.values()) {
        if (!seen.push.success) continue;
        const key = `${seen.push.eventId}/${seen.push.deviceId}`;
        by.set(key, [...(by.get(key) ?? []), seen]);
      }
      return by;
    };
    let missing = wanted;
    for (const deadline = Date.now() + RECOVERY_MS; missing.length > 0 && Date.now() < deadline; ) {
      await sleep(500);
      await pushLogs.collect(currentRuns('notification-service'));
      const pushes = pushesOf();
      const rows = await recordedBy();
      missing = missing.filter(({ eventId, deviceId }) => !pushes.has(`${eventId}/${deviceId}`) && !sentUnseenByKilledRun(rows.get(`${eventId}/${deviceId}`)));
    }
    expect(missing).toEqual([]);

    // A second push of an event to a device only where the first went from the instance that was
    // killed, which had not recorded it: the same job, resent by a living instance.
    const pushes = pushesOf();
    const repeated = wanted
      .map(({ eventId, deviceId }) => ({ eventId, deviceId, copies: pushes.get(`${eventId}/${deviceId}`) ?? [] }))
      .filter(({ copies }) => copies.length > 1)
      .map(({ eventId, deviceId, copies }) => ({ eventId, deviceId, fromKilled: copies.filter((copy) => copy.run === killed.run).length, fromLiving: copies.filter((copy) => copy.run !== killed.run).length }));
    expect(repeated.filter(({ fromKilled, fromLiving }) => fromKilled === 0 || fromLiving > 1)).toEqual([]);
  }, RECOVERY_MS + 30_000);

  it("delivers every accepted answer's webhook, one body and one webhook-id per answer", async () => {
    const responses = () => integrator.callsTo('/offer/response');
    const key = (body: string) => {
      const parsed = JSON.parse(body) as { offerId: string; workerId: string };
      return `${parsed.offerId}/${parsed.workerId}`;
    };
    const undelivered = () => {
      const delivered = new Set(responses().map((arrival) => key(arrival.body)));
      return acceptedAnswers.filter((answer) => !delivered.has(`${answer.offerId}/${answer.workerId}`));
    };
    for (const deadline = Date.now() + RECOVERY_MS; undelivered().length > 0 && Date.now() < deadline; ) await sleep(500);
    expect(undelivered()).toEqual([]);
    expect(responses().every((arrival) => arrival.verified)).toBe(true);
    const bodiesById = new Map<string, Set<string>>();
    const idsByAnswer = new Map<string, Set<string>>();
    for (const arrival of responses()) {
      bodiesById.set(arrival.webhookId, (bodiesById.get(arrival.webhookId) ?? new Set()).add(arrival.body));
      idsByAnswer.set(key(arrival.body), (idsByAnswer.get(key(arrival.body)) ?? new Set()).add(arrival.webhookId));
    }
    expect([...bodiesById.entries()].filter(([, bodies]) => bodies.size !== 1)).toEqual([]);
    expect([...idsByAnswer.entries()].filter(([, ids]) => ids.size !== 1)).toEqual([]);
    expect(idsByAnswer.size).toBe(acceptedAnswers.length);
  }, RECOVERY_MS + 30_000);

  it('each instance that lived through the failures still does its whole part alone', async () => {
    // With its twin stopped, nothing can cover for a survivor whose subscriptions or consumer did not
    // come back after its node went: it answers requests, publishes its outbox and consumes alone.
    await Promise.all(Object.values(victimsOf()).map((victim) => victim.stop()));
    const survivors = survivorsOf();
    const offersApi = new OffersClient(survivors['offers-api'].url, org.apiKey);
    const offerId = expectStatus(await offersApi.createOffer(offerBody(org.user.id, org.workers.map((worker) => worker.id))), 201).text;
    expectStatus(await offersApi.as(org.workers[0].token).answer(offerId, 'applied'), 200);
    await eventually(
      async () => {
        const log = await request<{ pushes: RecordedPush[] }>(survivors['notification-service'].url, 'GET', `/dev/push-log?offerId=${offerId}`);
        return deviceIds.every((deviceId) => log.json.pushes.some((push) => push.deviceId === deviceId && push.success));
      },
      60_000,
      'the pushes of an offer sent through the survivors',
    );
    await eventually(
      () => integrator.callsTo('/offer/response').some((call) => call.verified && call.body.includes(offerId)),
      60_000,
      'the webhook of an answer sent through the survivors',
    );
  }, 150_000);

  it('kept the consumers on all three nodes, and never refused a service anything on any node', async () => {
    const nc = await platform.events.connect();
    try {
      const jsm = await jetstreamManager(nc);
      const durables = [];
      for await (const consumer of jsm.consumers.list(platform.events.stream)) if (consumer.config.durable_name) durables.push(consumer);
      expect(durables.length).toBeGreaterThan(0);
      for (const consumer of durables) expect({ consumer: consumer.name, replicas: (consumer.cluster?.replicas ?? []).length }).toEqual({ consumer: consumer.name, replicas: 2 });
    } finally {
      await nc.close();
    }
    expect(cluster.violations().filter((line) => !line.includes('nats.js:test-'))).toEqual([]);
  });
});
