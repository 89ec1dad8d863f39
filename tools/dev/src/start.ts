import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateSigningKeysJson } from '@availability/webhook-signing';
import { NatsServerProcess } from '@availability/testing';
import { writeBusConfig, type WrittenBusConfig } from './bus-config.js';
import { logFormat, serviceLogLine } from './service-log.js';
import { startMailCatcher } from './mail-catcher.js';
import { vapidSettingsFile } from './web-push-keys.js';
import { DEV_BUS_DIR, DEV_NATS_PORT, MAIL_CATCHER_HTTP_PORT, MAIL_CATCHER_PORT, PLATFORM_SERVICES, type PlatformService } from './platform.js';

/**
 * Starts the whole platform locally, each service as its own process (as deployed), against the
 * local PostgreSQL and Redis, and its own authenticated nats-server configured as in a deployment
 * (bus-config.ts; keys under .nats/dev, out of git). Each service applies its own migrations and
 * ensures the event stream at start-up, so a fresh machine needs nothing else. Ctrl-C stops them all
 * gracefully.
 */
const running: Array<{ service: PlatformService; child: ChildProcess }> = [];

// contact-directory and webhook-dispatcher both sign v1a with the platform's key, and the dispatcher
// publishes it: one key for this run, generated now (never written anywhere), unless one is configured.
const signingKeys = process.env.WEBHOOK_SIGNING_KEYS || generateSigningKeysJson(`dev-${randomBytes(4).toString('hex')}`);
// notification-service's Web Push identity: kept beside the bus keys (out of git) so browsers'
// subscriptions outlive a restart; the shell's VAPID_* settings win when given.
const vapidSettings = process.env.VAPID_PRIVATE_KEY ? {} : vapidSettingsFile(resolve(DEV_BUS_DIR, 'web-push-vapid.env')).settings;
let stopping = false;
let nats: NatsServerProcess | undefined;
let bus: WrittenBusConfig | undefined;
const natsUrl = `nats://127.0.0.1:${DEV_NATS_PORT}`;
const formatLine = serviceLogLine(logFormat(process.env, process.stdout.isTTY === true), process.stdout.isTTY === true);

async function startService(service: PlatformService): Promise<void> {
  const child = spawn(process.execPath, [resolve('dist/apps', service.app, 'src/main.js')], {
    env: { LOG_LEVEL: 'info', ...process.env, WEBHOOK_SIGNING_KEYS: signingKeys, ...service.env, ...(service.app === 'notification-service' ? vapidSettings : {}), NATS_URL: natsUrl, ...bus?.serviceEnv(service.app), PORT: String(service.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push({ service, child });
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => {
      const shown = formatLine(service.app, line);
      if (shown !== undefined) process.stdout.write(`${shown}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${service.app} stopped unexpectedly (${signal ?? code}); stopping the platform`);
      void stopAll(1);
    }
  });
  const url = `http://localhost:${service.port}`;
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`${service.app} exited during start-up`);
    const ready = await fetch(`${url}/health`).then((r) => r.ok).catch(() => false);
    if (ready) {
      console.log(`✔ ${service.app.padEnd(20)} ${url}  (docs ${url}/docs) — ${service.summary}`);
      return;
    }
    await sleep(100);
  }
  throw new Error(`${service.app} did not become healthy within 30 s`);
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Reverse order: callers stop before the services they call.
  for (const { service, child } of [...running].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
    console.log(`■ ${service.app} stopped`);
  }
  await nats?.stop();
  process.exit(exitCode);
}

process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

async function startBus(): Promise<void> {
  const dir = resolve(DEV_BUS_DIR);
  bus = await writeBusConfig({
    dir,
    listen: `127.0.0.1:${DEV_NATS_PORT}`,
    storeDir: resolve(dir, 'jetstream'),
    subjectPrefix: process.env.NATS_SUBJECT_PREFIX ?? '',
    stream: process.env.EVENTS_STREAM ?? 'PLATFORM',
  });
  nats = await NatsServerProcess.start(bus.configFile, { ownProcessGroup: true });
  console.log(`✔ ${'nats-server'.padEnd(20)} ${natsUrl}  — JetStream, each service with its own nkey (${DEV_BUS_DIR}/nats-server.conf)`);
}

try {
  await startBus();
  await startMailCatcher(MAIL_CATCHER_PORT, MAIL_CATCHER_HTTP_PORT, (line) => console.log(`[mail] ${line}`));
  console.log(
    `✔ ${'mail catcher'.padEnd(20)} smtp://127.0.0.1:${MAIL_CATCHER_PORT}  (list http://localhost:${MAIL_CATCHER_HTTP_PORT}/api/v1/messages) — development e-mail is printed here`,
  );
  for (const service of PLATFORM_SERVICES) await startService(service);
  console.log('The platform is up. Walk the whole journey with `npm run demo`; seed an organisation with `npm run -s cli -- seed`. Ctrl-C stops everything.');
} catch (error) {
  console.error((error as Error).message);
  await stopAll(1);
}
