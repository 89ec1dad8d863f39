import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InviteCreatedEvent } from '@availability/contracts';
import { createTestCertificates, eventually, freePort, SmtpSink, type SmtpSinkOptions, startTestPlatform, type TestCertificates, type TestPlatform } from '@availability/testing';
import { envelope, EventPublisher, sleep } from './helpers.js';

/**
 * E-mail to a relay as deployments have one: addressed by host name, over TLS (STARTTLS on an
 * `smtp://` URL, or `smtps://`), with credentials in SMTP_URL and a certificate from a private CA
 * given as SMTP_CA_FILE. A relay that cannot prove itself (STARTTLS stripped from its answer, a
 * certificate for another name) is never sent the password or a message, a relay that goes silent
 * holds no send and no stop beyond SMTP_TIMEOUT_MS, and what waited for either is delivered once
 * the real relay answers.
 */
const credentials = { user: 'platform@relay.test', pass: `relay-${randomBytes(12).toString('hex')}` };
const organisationId = randomUUID();
let certificates: TestCertificates;

interface MailingPlatform {
  platform: TestPlatform;
  events: EventPublisher;
}

async function startMailingPlatform(smtpUrl: string, env: Record<string, string> = {}): Promise<MailingPlatform> {
  const platform = await startTestPlatform(['notification-service'], {
    ...env,
    SMTP_URL: smtpUrl,
    SMTP_CA_FILE: certificates.caFile,
    EMAIL_BACKOFF_MS: '200',
    EMAIL_ATTEMPTS: '10',
    PUSH_TRANSPORT: 'recording',
  });
  return { platform, events: await EventPublisher.connect(platform.events) };
}

async function stopMailingPlatform(mailing?: MailingPlatform): Promise<void> {
  await mailing?.events.close();
  await mailing?.platform.stop();
}

/** Harriet Hirer invites someone with a new address; the address is returned. */
async function invite({ events }: MailingPlatform, domain = 'example.test'): Promise<string> {
  const emailAddress = `worker.${randomBytes(4).toString('hex')}@${domain}`;
  const event: InviteCreatedEvent = {
    ...envelope(organisationId),
    inviteId: randomUUID(),
    invitedByUserId: randomUUID(),
    invitedByName: 'Harriet Hirer',
    organisationName: 'Acme Staffing',
    name: 'Wendy Worker',
    emailAddress,
    suggestedByOrganisationId: null,
  };
  await events.publish('invites.created', event);
  return emailAddress;
}

/** SMTP_URL of a relay on `port` that speaks STARTTLS and requires the credentials (whatever answers there now). */
function startTlsRelayUrl(port: number): string {
  return SmtpSink.urlFor(port, { credentials, tls: { certificate: certificates.localhost, mode: 'starttls' } });
}

/** A relay on `port` (the same port across a test, so SMTP_URL stays the same). */
async function relayOn(port: number, options: SmtpSinkOptions): Promise<SmtpSink> {
  const sink = new SmtpSink({ credentials, ...options });
  await sink.listen(port);
  return sink;
}

beforeAll(async () => {
  certificates = await createTestCertificates();
});

afterAll(async () => {
  await certificates?.remove();
});

describe('an smtp:// relay by host name, with STARTTLS', () => {
  let mailing: MailingPlatform;
  let relay: SmtpSink | undefined;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    mailing = await startMailingPlatform(startTlsRelayUrl(port));
  }, 60_000);

  afterAll(async () => {
    await stopMailingPlatform(mailing);
    await relay?.close();
  });

  it('is sent neither password nor message when STARTTLS is stripped or its certificate names another host, gets them once it proves itself, and is not asked again what it refuses', async () => {
    const waiting: string[] = [];

    // A man in the middle answers EHLO without STARTTLS, and offers AUTH in clear.
    relay = await relayOn(port, {});
    waiting.push(await invite(mailing));
    await sleep(1_500);
    expect(relay.authAttempts).toEqual([]);
    expect(relay.mails).toEqual([]);
    await relay.close();

    // One that offers TLS, with a certificate signed by the trusted CA for other.example only.
    relay = await relayOn(port, { tls: { certificate: certificates.otherName, mode: 'starttls' } });
    waiting.push(await invite(mailing));
    await sleep(1_500);
    expect(relay.authAttempts).toEqual([]);
    expect(relay.mails).toEqual([]);
    await relay.close();

    // The relay itself: both invitations arrive through their retries, and a new one straight away.
    relay = await relayOn(port, { tls: { certificate: certificates.localhost, mode: 'starttls' }, refuseDomain: 'nobody.test' });
    const sink = relay;
    await eventually(() => waiting.every((address) => sink.to(address).length === 1), 30_000, 'the invitations that waited');
    const fresh = await invite(mailing);
    await eventually(() => sink.to(fresh).length === 1, 15_000, 'a new invitation');
    expect(sink.mails.map((mail) => mail.secure)).toEqual([true, true, true]);
    // What the relay refuses for good (550 to RCPT TO) is not asked again.
    const refused = await invite(mailing, 'nobody.test');
    await eventually(() => sink.refusedRecipients.includes(refused), 15_000, 'the refusal');
    await sleep(1_500);
    expect(sink.refusedRecipients.filter((address) => address === refused)).toHaveLength(1);
    expect(sink.mails[0].subject).toBe('Harriet Hirer invited you to work with Acme Staffing');
    expect(sink.authAttempts.length).toBeGreaterThan(0);
    expect(sink.authAttempts.every((attempt) => attempt.secure && attempt.accepted && attempt.user === credentials.user)).toBe(true);
  }, 60_000);
});

describe('an smtps:// relay by host name', () => {
  let mailing: MailingPlatform | undefined;
  let relay: SmtpSink | undefined;

  afterAll(async () => {
    await stopMailingPlatform(mailing);
    await relay?.close();
  });

  it('is spoken to in TLS from the first byte', async () => {
    relay = await SmtpSink.start({ credentials, tls: { certificate: certificates.localhost, mode: 'implicit' } });
    expect(relay.url).toMatch(/^smtps:\/\/.*@localhost:\d+$/);
    mailing = await startMailingPlatform(relay.url);
    const address = await invite(mailing);
    const sink = relay;
    await eventually(() => sink.to(address).length === 1, 15_000, 'the invitation');
    expect(sink.to(address)[0].secure).toBe(true);
    expect(sink.authAttempts.every((attempt) => attempt.secure && attempt.accepted)).toBe(true);
  }, 60_000);
});

/** A relay that greets, then never answers again: what a hung or overloaded relay looks like. */
async function silentRelayOn(port: number): Promise<{ server: Server; connections: Socket[] }> {
  const connections: Socket[] = [];
  const server = createServer((socket) => {
    connections.push(socket);
    socket.on('error', () => undefined);
    socket.resume(); // reads what it is sent (and so sees the client close), answers nothing
    socket.write('220 relay.test ESMTP\r\n');
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return { server, connections };
}

async function closeSilentRelay({ server, connections }: { server: Server; connections: Socket[] }): Promise<void> {
  for (const socket of connections) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
}

describe('a relay that goes silent', () => {
  const TIMEOUT_MS = 2_000;
  let mailing: MailingPlatform;
  let relay: SmtpSink | undefined;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    mailing = await startMailingPlatform(startTlsRelayUrl(port), { SMTP_TIMEOUT_MS: String(TIMEOUT_MS) });
  }, 60_000);

  afterAll(async () => {
    await stopMailingPlatform(mailing);
    await relay?.close();
  });

  it('holds a send no longer than SMTP_TIMEOUT_MS: the invitation is tried again, and goes out once the relay answers', async () => {
    const silent = await silentRelayOn(port);
    const address = await invite(mailing);
    try {
      // Each attempt gives up after the timeout and closes its connection; the next opens another.
      await eventually(() => silent.connections.length >= 2 && silent.connections[0].closed, 4 * TIMEOUT_MS + 5_000, 'a second attempt');
    } finally {
      await closeSilentRelay(silent);
    }

    relay = await relayOn(port, { tls: { certificate: certificates.localhost, mode: 'starttls' } });
    const sink = relay;
    await eventually(() => sink.to(address).length === 1, 30_000, 'the invitation');
  }, 60_000);

  it('keeps no stop waiting on it beyond SMTP_TIMEOUT_MS', async () => {
    await relay?.close();
    relay = undefined;
    const silent = await silentRelayOn(port);
    try {
      await invite(mailing);
      await eventually(() => silent.connections.length >= 1, 10_000, 'the send to start');
      const service = mailing.platform.services['notification-service'];
      const stopping = Date.now();
      await service.stop();
      expect(Date.now() - stopping).toBeLessThan(TIMEOUT_MS + 5_000);
    } finally {
      await closeSilentRelay(silent);
    }
  }, 60_000);
});
