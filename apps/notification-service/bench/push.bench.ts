import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream } from '@nats-io/jetstream';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createTestDatabase, createTestEventNamespace, freePort, queryDatabase, testBusEnv } from '@availability/testing';

export interface PushBenchOptions {
  workers: number;
  /** The goal: every push handed to the transport within this long of the event. */
  targetMs: number;
  /** The goal: service peak RSS (VmHWM) below this. */
  maxRssMb: number;
}

export interface PushBenchResult {
  workers: number;
  devices: number;
  handedOverMs: number;
  firstHandedOverMs: number;
  deliveriesRecordedMs: number;
  pushesHandedOver: number;
  pushesPerSecond: number;
  rssBeforeMb: number;
  peakRssSampledMb: number;
  vmHwmMb: number;
  passed: boolean;
}

function procStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * One offer to N workers with one device each: notification-service runs as its own process with
 * the recording transport on a private database, stream and queue prefix. Devices are seeded by SQL
 * (it is the service's own database). Measures event → last push handed to the transport, and RSS.
 */
export async function runPushBenchmark(options: PushBenchOptions): Promise<PushBenchResult> {
  const database = await createTestDatabase();
  const events = await createTestEventNamespace();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [resolve(process.cwd(), 'dist/apps/notification-service/src/main.js')], {
    env: {
      ...process.env,
      ...events.env,
      ...testBusEnv(events.env.NATS_URL, 'notification-service'),
      // The recording transport is a development aid, which production refuses to start with.
      NODE_ENV: 'test',
      PORT: String(port),
      DATABASE_URL: database.url,
      PUSH_TRANSPORT: 'recording',
      LOG_LEVEL: 'warn',
      HTTP_REQUEST_LOGS: 'false',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const nc = await events.connect();
  try {
    await waitForHealth(baseUrl);
    const organisationId = randomUUID();
    const workerIds = Array.from({ length: options.workers }, () => randomUUID());
    await queryDatabase(
      database.url,
      `INSERT INTO notifications.device (id, worker_id, token, token_hash, platform, app_version)
       SELECT gen_random_uuid(), w.id, t.token, encode(sha256(convert_to(t.token, 'UTF8')), 'hex'),
              CASE WHEN w.n % 2 = 0 THEN 'ios' ELSE 'android' END, '1.0.0'
       FROM unnest($1::text[]) WITH ORDINALITY AS w(id, n)
       CROSS JOIN LATERAL (SELECT 'bench:' || md5(w.id) || repeat('x', 120) AS token) t`,
      [workerIds],
    );

    const js = jetstream(nc);
    const publish = async (ids: string[]) => {
      const event = {
        eventId: randomUUID(),
        occurredAt: new Date().toISOString(),
        organisationId,
        offerId: randomUUID(),
        title: 'Benchmark shift',
        createdByUserId: randomUUID(),
        notifyEmailAddress: null,
        events: [{ start: '2030-01-01T22:00:00.000Z', end: '2030-01-02T06:00:00.000Z' }],
        workerIds: ids,
      };
      const publishedAt = Date.now();
      await js.publish(`${events.prefix}offers.created`, JSON.stringify(event), { msgID: event.eventId });
      return { event, publishedAt };
    };

    // Warm-up: a small offer, so the measurement is not of module loading and first JIT.
    const warm = await publish(workerIds.slice(0, 50));
    await waitForPushes(baseUrl, warm.event.eventId, 50, 30_000);

    const rssBeforeMb = procStatusMb(child.pid as number, 'VmRSS');
    let peakRssSampledMb = rssBeforeMb;
    const sampler = setInterval(() => {
      peakRssSampledMb = Math.max(peakRssSampledMb, procStatusMb(child.pid as number, 'VmRSS'));
    }, 50);
    const { event, publishedAt } = await publish(workerIds);
    const summary = await waitForPushes(baseUrl, event.eventId, options.workers, 60_000);
    const handedOverMs = Date.parse(summary.lastAt as string) - publishedAt;
    const firstHandedOverMs = Date.parse(summary.firstAt as string) - publishedAt;
    // Deliveries are recorded right after each batch is handed over.
    let deliveriesRecordedMs = Number.NaN;
    for (;;) {
      const rows = await queryDatabase<{ n: number }>(database.url, `SELECT count(*)::int AS n FROM notifications.push_delivery WHERE event_id = $1`, [event.eventId]);
      if (rows[0].n >= options.workers) {
        deliveriesRecordedMs = Date.now() - publishedAt;
        break;
      }
      if (Date.now() - publishedAt > 60_000) break;
      await sleep(25);
    }
    clearInterval(sampler);
    const vmHwmMb = procStatusMb(child.pid as number, 'VmHWM');
    return {
      workers: options.workers,
      devices: options.workers,
      handedOverMs,
      firstHandedOverMs,
      deliveriesRecordedMs,
      pushesHandedOver: summary.count,
      pushesPerSecond: Math.round((summary.count / Math.max(handedOverMs, 1)) * 1000),
      rssBeforeMb: round(rssBeforeMb),
      peakRssSampledMb: round(peakRssSampledMb),
      vmHwmMb: round(vmHwmMb),
      passed: summary.count === options.workers && handedOverMs <= options.targetMs && vmHwmMb < options.maxRssMb,
    };
  } finally {
    child.kill('SIGTERM');
    await new Promise((done) => (child.exitCode !== null ? done(undefined) : child.once('exit', done)));
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    for (const name of ['push-notification', 'email']) {
      const queue = new Queue(name, { connection: redis, prefix: events.env.QUEUE_PREFIX });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    await redis.quit();
    await nc.close();
    await events.dispose();
    await database.drop();
  }
}

function round(mb: number): number {
  return Math.round(mb * 10) / 10;
}

async function waitForHealth(baseUrl: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error('notification-service did not become healthy');
}

interface PushLogSummary {
  count: number;
  succeeded: number;
  firstAt: string | null;
  lastAt: string | null;
}

async function waitForPushes(baseUrl: string, eventId: string, expected: number, timeoutMs: number): Promise<PushLogSummary> {
  const deadline = Date.now() + timeoutMs;
  let summary: PushLogSummary = { count: 0, succeeded: 0, firstAt: null, lastAt: null };
  while (Date.now() < deadline) {
    summary = (await (await fetch(`${baseUrl}/dev/push-log?eventId=${eventId}&summary=1`)).json()) as PushLogSummary;
    if (summary.count >= expected) return summary;
    await sleep(50);
  }
  throw new Error(`only ${summary.count} of ${expected} pushes handed over within ${timeoutMs} ms`);
}
