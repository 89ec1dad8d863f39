import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  InviteCreatedEvent,
  OfferCompletedEvent,
  OfferCreatedEvent,
  OfferResponseRecordedEvent,
  OfferWithdrawnEvent,
  WebhookEndpointDisabledEvent,
} from '@availability/contracts';
import { DirectoryPattern } from '@availability/contracts';
import {
  answerRequests,
  eventually,
  freePort,
  linksIn,
  queryDatabase,
  ServiceProcess,
  SmtpSink,
  startTestPlatform,
  startTestRedisServer,
  type TestPlatform,
  type TestRedisServer,
} from '@availability/testing';
import { inviteEmail } from '../src/email/email-content.js';
import { envelope, EventPublisher, sleep } from './helpers.js';

/**
 * E-mail through a real SMTP server on loopback: invitations, the offer's notify address told of
 * answers (digested per window) and of completion or withdrawal, and disabled-webhook notices to
 * the organisation's admins (the directory's answer comes from a small fake responder here). Its
 * Redis is a private server, so its data can be taken away.
 */
const WINDOW_MS = 2_000;
let platform: TestPlatform;
let events: EventPublisher;
let smtp: SmtpSink;
let redis: TestRedisServer;
const organisationId = randomUUID();
const contactRequests: unknown[] = [];

beforeAll(async () => {
  smtp = await SmtpSink.start();
  redis = await startTestRedisServer();
  platform = await startTestPlatform(['notification-service'], {
    REDIS_URL: redis.url,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Availability <no-reply@availability.test>',
    EMAIL_DIGEST_WINDOW_MS: String(WINDOW_MS),
    EMAIL_BACKOFF_MS: '100',
    EMAIL_ATTEMPTS: '3',
    JOB_RECOVERY_AFTER_MS: '1500',
    JOB_RECOVERY_INTERVAL_MS: '250',
    PUSH_TRANSPORT: 'recording',
  });
  events = await EventPublisher.connect(platform.events);
  // contact-directory's answer to "who are this organisation's admins?".
  await answerRequests(events.nc, `${platform.events.prefix}${DirectoryPattern.ResolveOrganisationContacts}`, (request: unknown) => {
    contactRequests.push(request);
    return { name: 'Acme Staffing', adminEmailAddresses: ['boss@acme.test', 'it@acme.test'] };
  });
});

afterAll(async () => {
  await events?.close();
  await platform?.stop();
  await smtp?.close();
  await redis?.stop();
});

function offerCreated(notifyEmailAddress: string | null, workerIds: string[], title: string): OfferCreatedEvent {
  return {
    ...envelope(organisationId),
    offerId: randomUUID(),
    title,
    createdByUserId: randomUUID(),
    notifyEmailAddress,
    events: [{ start: '2030-01-01T22:00:00.000Z', end: '2030-01-02T06:00:00.000Z' }],
    workerIds,
  };
}

function answer(offerId: string, workerId: string, response: 'applied' | 'rejected', previousResponse: OfferResponseRecordedEvent['previousResponse'] = 'awaiting'): OfferResponseRecordedEvent {
  return { ...envelope(organisationId), offerId, workerId, response, previousResponse, respondedAt: new Date().toISOString() };
}

/** Harriet Hirer of Acme Staffing invites `name`. */
function invitation(name: string, emailAddress: string): InviteCreatedEvent {
  return {
    ...envelope(organisationId),
    inviteId: randomUUID(),
    invitedByUserId: randomUUID(),
    invitedByName: 'Harriet Hirer',
    organisationName: 'Acme Staffing',
    name,
    emailAddress,
    suggestedByOrganisationId: null,
  };
}

/** Just after a digest window starts, so a burst of answers falls in one window. */
async function startOfWindow(): Promise<void> {
  await sleep(WINDOW_MS - (Date.now() % WINDOW_MS) + 50);
}

describe('invitation e-mail', () => {
  it('sends one invitation per invites.created, even when the event is delivered twice', async () => {
    const address = `ann.${randomBytes(3).toString('hex')}@example.test`;
    const event = invitation('Ann Example', address);
    await events.publish('invites.created', event, `${event.eventId}-a`);
    await events.publish('invites.created', event, `${event.eventId}-b`);
    await eventually(() => smtp.to(address).length > 0, 15_000, 'the invitation');
    await sleep(1_000);
    const mails = smtp.to(address);
    expect(mails).toHaveLength(1);
    expect(mails[0].from).toBe('no-reply@availability.test');
    expect(mails[0].subject).toBe('Harriet Hirer invited you to work with Acme Staffing');
    expect(mails[0].text).toContain('Hello Ann Example,');
    expect(mails[0].text).toContain(`invite=${event.inviteId}`);
    expect(await pendingEmail(event.eventId)).toBeUndefined();
  });

  it('sends an invitation whose job Redis lost, and keeps nothing pending once it is sent', async () => {
    const address = `lost.${randomBytes(3).toString('hex')}@example.test`;
    const event = invitation('Lost Example', address);
    // What a queued invitation leaves in the database when Redis loses its job: kept, made no progress for an hour.
    const job = { kind: 'send', id: event.eventId, message: inviteEmail(event, 'https://availability.example/join') };
    await queryDatabase(platform.database.url, `INSERT INTO notifications.pending_email (job_id, job, progress_at) VALUES ($1, $2, now() - interval '1 hour')`, [event.eventId, JSON.stringify(job)]);
    await eventually(() => smtp.to(address).length > 0, 10_000, 'the invitation');
    await eventually(async () => (await pendingEmail(event.eventId)) === undefined, 5_000, 'the invitation no longer pending');
    expect(smtp.to(address)[0].text).toContain('Hello Lost Example,');
    await sleep(1_000);
    expect(smtp.to(address)).toHaveLength(1);
  });

  it('shows the names as plain text no mail client makes a link of, whatever an event carries (one written before names were checked)', async () => {
    const address = `plain.${randomBytes(3).toString('hex')}@example.test`;
    const event = {
      ...invitation('Win at win.example.com\n\nhttp://evil.test/now <a href="https://evil.test">me@evil.test</a>', address),
      invitedByName: 'Harriet.Hirer\u202E',
      organisationName: 'Acme　Staffing．com',
    };
    await events.publish('invites.created', event, event.eventId);
    const mail = await eventually(() => smtp.to(address)[0] ?? false, 15_000, 'the invitation');
    const hello = mail.text.split('\n')[0];
    expect(hello).toMatch(/^Hello Win at win\. example\. com http: \/ \/ evil\. test\/ now .*,$/);
    expect(`${mail.subject}\n${mail.text}`).not.toMatch(/[\u202E\r]/);
    expect(linksIn(mail.subject)).toEqual([]);
    // The one link is the invitation's, on the portal's join page (PORTAL_URL, as INVITE_LINK_URL is not set).
    expect(linksIn(mail.text)).toEqual([`http://localhost:3005/join?invite=${event.inviteId}`]);
  });
});

describe("offer notify address", () => {
  it('digests answers: one e-mail per window listing them, then one on completion', async () => {
    const notify = `ops.${randomBytes(3).toString('hex')}@acme.test`;
    const workers = ['worker-a', 'worker-b', 'worker-c', 'worker-d'];
    const offer = offerCreated(notify, workers, 'Night pickers');
    await events.publish('offers.created', offer);
    await sleep(300);

    await startOfWindow();
    await events.publish('offers.response.recorded', answer(offer.offerId, 'worker-a', 'applied'));
    await events.publish('offers.response.recorded', answer(offer.offerId, 'worker-b', 'rejected'));
    await events.publish('offers.response.recorded', answer(offer.offerId, 'worker-c', 'applied'));
    const redelivered = answer(offer.offerId, 'worker-a', 'rejected', 'applied');
    await events.publish('offers.response.recorded', redelivered, `${redelivered.eventId}-1`);
    await events.publish('offers.response.recorded', redelivered, `${redelivered.eventId}-2`);

    await eventually(() => smtp.to(notify).length > 0, 15_000, 'the first digest');
    await sleep(WINDOW_MS * 1.5);
    const first = smtp.to(notify);
    expect(first).toHaveLength(1);
    expect(first[0].subject).toBe('New answers to “Night pickers”: 2 applied, 2 rejected');
    const lines = first[0].text.split('\n').filter((line) => line.startsWith('- '));
    expect(lines).toHaveLength(4);
    expect(lines.filter((line) => line.includes('worker-a'))).toHaveLength(2);
    expect(first[0].text).toContain('worker-a: rejected (changed from applied)');
    expect(first[0].text).toContain('worker-b: rejected');
    expect(first[0].text).toContain('worker-c: applied');

    // A later answer: its own digest, listing only it, at least a window after the first.
    await events.publish('offers.response.recorded', answer(offer.offerId, 'worker-d', 'applied'));
    await eventually(() => smtp.to(notify).length > 1, 15_000, 'the second digest');
    const second = smtp.to(notify)[1];
    expect(second.text).toContain('worker-d: applied');
    expect(second.text).not.toContain('worker-a');
    expect(second.receivedAt - first[0].receivedAt).toBeGreaterThanOrEqual(WINDOW_MS - 100);

    const completed: OfferCompletedEvent = {
      ...envelope(organisationId),
      offerId: offer.offerId,
      title: offer.title,
      successfulWorkerIds: ['worker-c'],
      unsuccessfulWorkerIds: ['worker-a', 'worker-b', 'worker-d'],
    };
    await events.publish('offers.completed', completed, `${completed.eventId}-1`);
    await events.publish('offers.completed', completed, `${completed.eventId}-2`);
    await eventually(() => smtp.to(notify).length > 2, 15_000, 'the completion e-mail');
    await sleep(WINDOW_MS * 1.5);
    const all = smtp.to(notify);
    expect(all).toHaveLength(3);
    expect(all[2].subject).toBe('Offer complete: “Night pickers”');
    expect(all[2].text).toContain('1 worker(s) were assigned the work; 3 were told they were not selected.');
    expect(all[2].text).toContain('- Worker worker-c');
  });

  it('answers not yet e-mailed go out with the completion e-mail, not in a separate digest', async () => {
    const notify = `late.${randomBytes(3).toString('hex')}@acme.test`;
    const offer = offerCreated(notify, ['worker-x', 'worker-y'], 'Quick close');
    await events.publish('offers.created', offer);
    await sleep(300);
    await startOfWindow();
    await events.publish('offers.response.recorded', answer(offer.offerId, 'worker-x', 'applied'));
    await sleep(200);
    const completed: OfferCompletedEvent = {
      ...envelope(organisationId),
      offerId: offer.offerId,
      title: offer.title,
      successfulWorkerIds: ['worker-x'],
      unsuccessfulWorkerIds: ['worker-y'],
    };
    await events.publish('offers.completed', completed);
    await eventually(() => smtp.to(notify).length > 0, 15_000, 'the completion e-mail');
    await sleep(WINDOW_MS * 2);
    const mails = smtp.to(notify);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('Offer complete: “Quick close”');
    expect(mails[0].text).toContain('Answers since the last e-mail:');
    expect(mails[0].text).toContain('worker-x: applied');
  });

  it("an answer's digest goes out even when Redis loses its data before the answer's window ends", async () => {
    const notify = `lost.${randomBytes(3).toString('hex')}@acme.test`;
    const offer = offerCreated(notify, ['worker-r'], 'Redis went away');
    await events.publish('offers.created', offer);
    await sleep(300);
    await startOfWindow();
    const recorded = answer(offer.offerId, 'worker-r', 'applied');
    await events.publish('offers.response.recorded', recorded);
    await eventually(
      async () => (await queryDatabase(platform.database.url, 'SELECT 1 FROM notifications.offer_answer WHERE event_id = $1', [recorded.eventId])).length > 0,
      5_000,
      'the answer recorded',
    );
    await redis.loseData();
    await eventually(() => smtp.to(notify).length > 0, WINDOW_MS * 4, 'the digest');
    expect(smtp.to(notify)[0].text).toContain('worker-r: applied');
  });

  it('the withdrawal e-mail goes out, once, even when Redis loses its job while it waits to run', async () => {
    const notify = `lost-close.${randomBytes(3).toString('hex')}@acme.test`;
    const offer = offerCreated(notify, ['worker-1'], 'Closed while Redis went away');
    await events.publish('offers.created', offer);
    await sleep(300);
    const withdrawn: OfferWithdrawnEvent = { ...envelope(organisationId), offerId: offer.offerId, title: offer.title, workerIds: offer.workerIds };
    await events.publish('offers.withdrawn', withdrawn);
    // The closing e-mail's job waits a second in Redis before it runs; Redis loses it meanwhile.
    await eventually(async () => (await pendingEmail(withdrawn.eventId)) !== undefined, 5_000, 'the withdrawal e-mail pending');
    await redis.loseData();
    await eventually(() => smtp.to(notify).length > 0, 15_000, 'the withdrawal e-mail');
    await eventually(async () => (await pendingEmail(withdrawn.eventId)) === undefined, 5_000, 'the e-mail no longer pending');
    await sleep(1_000);
    expect(smtp.to(notify)).toHaveLength(1);
    expect(smtp.to(notify)[0].subject).toBe('Offer withdrawn: “Closed while Redis went away”');
  });

  it('withdrawal: one e-mail; an offer without a notify address e-mails nobody', async () => {
    const notify = `wd.${randomBytes(3).toString('hex')}@acme.test`;
    const offer = offerCreated(notify, ['worker-1', 'worker-2'], 'Withdrawn shift');
    const silent = offerCreated(null, ['worker-1'], 'Silent offer');
    await events.publish('offers.created', offer);
    await events.publish('offers.created', silent);
    await sleep(300);
    await events.publish('offers.response.recorded', answer(silent.offerId, 'worker-1', 'applied'));
    const withdrawn: OfferWithdrawnEvent = { ...envelope(organisationId), offerId: offer.offerId, title: offer.title, workerIds: offer.workerIds };
    const silentWithdrawn: OfferWithdrawnEvent = { ...envelope(organisationId), offerId: silent.offerId, title: silent.title, workerIds: silent.workerIds };
    await events.publish('offers.withdrawn', withdrawn);
    await events.publish('offers.withdrawn', silentWithdrawn);
    await eventually(() => smtp.to(notify).length > 0, 15_000, 'the withdrawal e-mail');
    await sleep(WINDOW_MS * 1.5);
    expect(smtp.to(notify)).toHaveLength(1);
    expect(smtp.to(notify)[0].subject).toBe('Offer withdrawn: “Withdrawn shift”');
    expect(smtp.to(notify)[0].text).toContain('All 2 worker(s) it was sent to have been told.');
    expect(smtp.mails.filter((mail) => mail.text.includes(silent.offerId))).toEqual([]);
  });
});

describe('webhook endpoint disabled', () => {
  it("e-mails the organisation's admins, as the directory names them", async () => {
    const event: WebhookEndpointDisabledEvent = {
      ...envelope(randomUUID()),
      baseUrl: 'https://integrator.example/hooks',
      reason: 'answered 410 Gone',
    };
    await events.publish('webhooks.endpoint.disabled', event);
    await eventually(() => smtp.mails.some((mail) => mail.text.includes('https://integrator.example/hooks')), 15_000, 'the notice');
    const notices = smtp.mails.filter((mail) => mail.text.includes('https://integrator.example/hooks'));
    expect(notices).toHaveLength(1);
    expect(notices[0].to.sort()).toEqual(['boss@acme.test', 'it@acme.test']);
    expect(notices[0].text).toContain('answered 410 Gone');
    expect(notices[0].text).toContain("Acme Staffing's service");
    expect(contactRequests).toContainEqual({ organisationId: event.organisationId });
  });
});

describe('two instances', () => {
  let second: ServiceProcess;

  beforeAll(async () => {
    second = await ServiceProcess.start({ app: 'notification-service', port: await freePort(), env: platform.env });
  });

  afterAll(async () => {
    await second?.stop();
  });

  // Both read answers in batches and both sweep: every answer is stored once, and the window's
  // digest goes out once, listing each answer once.
  it('send one digest per window, listing every answer once', async () => {
    const notify = `pair.${randomBytes(3).toString('hex')}@acme.test`;
    const workers = Array.from({ length: 12 }, (_, i) => `pair-worker-${String(i).padStart(2, '0')}`);
    const offer = offerCreated(notify, workers, 'Two of us');
    await events.publish('offers.created', offer);
    await sleep(300);

    await startOfWindow();
    for (const workerId of workers) {
      await events.publish('offers.response.recorded', answer(offer.offerId, workerId, 'applied'));
      await sleep(40);
    }
    await eventually(() => smtp.to(notify).length > 0, 15_000, 'the digest');
    await sleep(WINDOW_MS * 2);
    const mails = smtp.to(notify);
    expect(mails).toHaveLength(1);
    const lines = mails[0].text.split('\n').filter((line) => line.startsWith('- '));
    expect(lines.map((line) => /^- Worker (\S+): applied at /.exec(line)?.[1]).sort()).toEqual(workers);
    const stored = await queryDatabase<{ n: number }>(platform.database.url, `SELECT count(*)::int AS n FROM notifications.offer_answer WHERE offer_id = $1`, [offer.offerId]);
    expect(stored[0].n).toBe(workers.length);
  });
});

async function pendingEmail(jobId: string): Promise<{ job_id: string } | undefined> {
  return (await queryDatabase<{ job_id: string }>(platform.database.url, 'SELECT job_id FROM notifications.pending_email WHERE job_id = $1', [jobId]))[0];
}
