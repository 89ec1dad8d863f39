import { setTimeout as sleep } from 'node:timers/promises';
import { expectStatus, offerBody, OffersClient, PortalClient, issuePortalUserToken, request, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { classifyBenchProcesses, cpuPerOperation, measureCpu, SmtpSink, type SmtpSinkOptions, startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform, type TestPlatformOptions } from '@availability/testing';
import { paced } from './paced.js';
import { SteadyClient } from './steady-client.js';
import type { Defer } from './offers.bench.js';

/** The processes an answer passes through, in its order, then the infrastructure. */
export const ANSWER_PATH = ['offers-api', 'postgres', 'nats', 'webhook-dispatcher', 'example-integrator', 'redis', 'contact-directory', 'notification-service'];

const INTEGRATOR_SECRET = 'bench-integrator-secret-0123456789';

export interface Sent {
  key: string;
  /** When the request was sent. */
  sentAt: number;
  /** When its answer arrived: the platform has accepted (committed) it. */
  acceptedAt: number;
}

export interface Latencies {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Every request of the window has its figure (none lost). */
  complete: boolean;
}

/** One steady window of worker answers → webhooks: latency from acceptance, CPU per answer by process. */
export interface AnswerWindow {
  rate: number;
  answers: number;
  latency: Latencies;
  fromSent: Latencies;
  answerCall: Latencies;
  cpu?: Record<string, number>;
  /** CPU ms per answer of the platform's own processes (the benchmark and others left out). */
  platformCpu: number;
  receivedTwice: number;
  /** The measured answers, and when each one's webhook arrived (by `offerId/workerId`). */
  sent: Sent[];
  receivedAt: Map<string, number>;
}

/**
 * The whole stack, every service its own process as deployed, for benchmarks of the answer path: an
 * organisation of `workers` workers, each with a phone, whose webhooks go to the example integrator,
 * and the offers it sends, each to all its workers. Answers are made one per (offer, worker).
 */
export class AnswerPlatform {
  private readonly client = new SteadyClient();
  private pairs: Array<{ offerId: string; workerId: string; token: string }> = [];
  private next = 0;

  private constructor(
    readonly platform: TestPlatform,
    readonly org: SeededOrganisation,
    readonly sender: OffersClient,
    readonly mail: SmtpSink,
    readonly portalToken: string,
  ) {}

  static async start(
    { workers, env = {}, options = {}, mail: mailOptions = {} }: { workers: number; env?: Record<string, string>; options?: TestPlatformOptions; mail?: SmtpSinkOptions },
    defer: Defer,
  ): Promise<AnswerPlatform> {
    // The offers name a notify address, so their answers are e-mailed in digests: to a mail server that
    // takes them, as deployed. (Without one every digest failed and was retried, in the measured windows.)
    const mail = await SmtpSink.start(mailOptions);
    defer(() => mail.close());
    const platform = await startTestPlatform(
      ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher', 'example-integrator'],
      { LOG_LEVEL: 'warn', HTTP_REQUEST_LOGS: 'false', INTEGRATOR_SECRET, WEBHOOK_ALLOW_LOOPBACK: 'true', PUSH_TRANSPORT: 'recording', SMTP_URL: mail.url, ...env },
      options,
    );
    defer(() => platform.stop());
    const org = await seedOrganisation(platform.admin, { name: 'Bench Staffing', workers });
    const portalToken = await issuePortalUserToken(platform.url('contact-directory'), TEST_ADMIN_TOKEN, org.user.id);
    await new PortalClient(platform.url('contact-directory'), portalToken.token).saveWebhook(platform.url('example-integrator'), INTEGRATOR_SECRET);
    for (const [index, worker] of org.workers.entries()) {
      const registered = await request(platform.url('notification-service'), 'PUT', '/worker/devices', {
        body: { token: `bench-device-${index}`, platform: index % 2 ? 'ios' : 'android', appVersion: '1.0.0' },
        headers: { authorization: `Bearer ${worker.token}` },
      });
      expectStatus(registered, 201);
    }
    const answers = new AnswerPlatform(platform, org, new OffersClient(platform.url('offers-api'), org.apiKey), mail, portalToken.token);
    defer(() => answers.client.close());
    return answers;
  }

  get workerIds(): string[] {
    return this.org.workers.map((worker) => worker.id);
  }

  /** Offers at `rate` a second for `seconds`, each to every worker; their (offer, worker) pairs may then be answered. */
  async createOffers(rate: number, seconds: number, signal: AbortSignal): Promise<Array<Sent & { offerId: string }>> {
    const body = offerBody(this.org.user.id, this.workerIds);
    // Each offer's pairs may be answered as soon as it exists: a soak answers while it creates offers.
    return paced(rate, seconds, signal, async () => {
      const sentAt = Date.now();
      const created = await this.sender.createOffer(body);
      expectStatus(created, 201);
      this.pairs.push(...this.org.workers.map((worker) => ({ offerId: created.text, workerId: worker.id, token: worker.token })));
      return { key: created.text, offerId: created.text, sentAt, acceptedAt: Date.now() };
    });
  }

  /** Answers not made yet, of the offers created so far. */
  get answersLeft(): number {
    return this.pairs.length - this.next;
  }

  /** Answers at `rate` a second for `seconds`, evenly spaced, each (offer, worker) once. */
  answer(rate: number, seconds: number, signal: AbortSignal): Promise<Sent[]> {
    const answerBody = JSON.stringify({ response: 'applied' });
    return paced(rate, seconds, signal, async () => {
      const pair = this.pairs[this.next++];
      if (!pair) throw new Error('no (offer, worker) pair left to answer: create more offers first');
      const sentAt = Date.now();
      const answered = await this.client.call(`${this.platform.url('offers-api')}/worker/offers/${pair.offerId}/response`, 'PUT', { authorization: `Bearer ${pair.token}` }, answerBody);
      if (answered.status !== 200) throw new Error(`answer: HTTP ${answered.status}: ${answered.text.slice(0, 500)}`);
      return { key: `${pair.offerId}/${pair.workerId}`, sentAt, acceptedAt: Date.now() };
    });
  }

  /**
   * A warm-up, then `seconds` of answers at `rate` measured: each answer from acceptance to the
   * integrator's receipt of its webhook, and the machine's CPU per answer by process.
   */
  async answerWindow(rate: number, warmupSeconds: number, seconds: number, signal: AbortSignal): Promise<AnswerWindow> {
    const integrator = this.platform.url('example-integrator');
    await this.answer(rate, warmupSeconds, signal);
    const before = await waitForWebhooks(integrator, this.next, signal);
    const stopCpu = measureCpu();
    const answers = await this.answer(rate, seconds, signal);
    // The last webhooks arrive within milliseconds; the integrator is not polled while CPU is measured.
    await sleep(1_000);
    const usage = await stopCpu(() => classifyBenchProcesses(this.platform.database.url));
    const { receivedAt, repeats } = await waitForWebhooks(integrator, this.next, signal);
    const cpu = cpuPerOperation(usage, answers.length, ANSWER_PATH);
    const platformCpu = cpu ? Object.entries(cpu).filter(([group]) => group !== 'bench' && group !== 'other' && group !== 'steal').reduce((sum, [, ms]) => sum + ms, 0) : Number.NaN;
    return {
      rate,
      answers: answers.length,
      latency: summarise(answers.map((a) => (receivedAt.get(a.key) ?? Number.NaN) - a.acceptedAt)),
      fromSent: summarise(answers.map((a) => (receivedAt.get(a.key) ?? Number.NaN) - a.sentAt)),
      answerCall: summarise(answers.map((a) => a.acceptedAt - a.sentAt)),
      cpu,
      platformCpu,
      receivedTwice: repeats - before.repeats,
      sent: answers,
      receivedAt,
    };
  }
}

/** Waits until every offer has all its pushes; returns offer id → when its last push was handed over. */
export async function waitForPushes(notificationUrl: string, offerIds: string[], perOffer: number, signal: AbortSignal): Promise<Map<string, number>> {
  const wanted = new Set(offerIds);
  const deadline = Date.now() + 120_000;
  for (;;) {
    signal.throwIfAborted();
    const log = await request<{ pushes: Array<{ offerId: string; at: string }> }>(notificationUrl, 'GET', '/dev/push-log');
    const counts = new Map<string, { count: number; last: number }>();
    for (const push of log.json.pushes) {
      if (!wanted.has(push.offerId)) continue;
      const entry = counts.get(push.offerId) ?? { count: 0, last: 0 };
      entry.count += 1;
      entry.last = Math.max(entry.last, Date.parse(push.at));
      counts.set(push.offerId, entry);
    }
    const done = offerIds.every((id) => (counts.get(id)?.count ?? 0) >= perOffer);
    if (done || Date.now() > deadline) return new Map([...counts].map(([id, entry]) => [id, entry.count >= perOffer ? entry.last : Number.NaN]));
    await sleep(250);
  }
}

/** When each answer's webhook first arrived (by `offerId/workerId`), and how many webhooks arrived again so far. */
export async function waitForWebhooks(integratorUrl: string, count: number, signal: AbortSignal): Promise<{ receivedAt: Map<string, number>; repeats: number }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    signal.throwIfAborted();
    const received = await request<{ duplicates: number; items: Array<{ path: string; body: string; receivedAt: string }> }>(integratorUrl, 'GET', '/received');
    const responses = received.json.items.filter((item) => item.path === '/offer/response');
    if (responses.length >= count || Date.now() > deadline) {
      const receivedAt = new Map(
        responses.map((item) => {
          const body = JSON.parse(item.body) as { offerId: string; workerId: string };
          return [`${body.offerId}/${body.workerId}`, Date.parse(item.receivedAt)];
        }),
      );
      return { receivedAt, repeats: received.json.duplicates };
    }
    await sleep(250);
  }
}

export function summarise(latencies: number[]): Latencies {
  const complete = latencies.every((value) => Number.isFinite(value));
  const sorted = latencies.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const at = (q: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1) ?? Number.NaN, complete };
}

export function formatCpu(cpu: Record<string, number>): string {
  return Object.entries(cpu)
    .map(([group, ms]) => `${group} ${ms}`)
    .join(', ');
}

export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
