import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NatsConnection } from '@nats-io/transport-node';
import fc from 'fast-check';
import { hashToken } from '@availability/auth';
import { DirectoryPattern, NotificationPattern, type RequestReplyAnswer } from '@availability/contracts';
import { DirectoryAdminClient, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { SmtpSink, startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';
import { type HostileMessage, hostileMessages } from '../src/fuzz/messages.js';

/**
 * The requests services answer on the bus, as a broken or compromised asker could send them: each a
 * valid request with one hostile thing in it, or bytes that are not JSON. contact-directory answers
 * the credential checks every service trusts, and notification-service the sign-in e-mails. Every
 * request must get an answer in time, a result or a failure that is one plain sentence (no stack, no
 * SQL); a credential check grants nothing but for the exact hash of a real key; and both services
 * must answer valid requests afterwards.
 *
 * REQUEST_FUZZ_SEED replays a run; REQUEST_FUZZ_COUNT sets the requests of each subject (40).
 */
const SEED = Number(process.env.REQUEST_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const COUNT = Number(process.env.REQUEST_FUZZ_COUNT ?? 40);
const ANSWER_WITHIN_MS = 5_000;

let platform: TestPlatform;
let mail: SmtpSink;
let organisation: SeededOrganisation;
let nc: NatsConnection;

/** A valid request of each subject, about the seeded organisation. */
function validRequest(subject: string): Record<string, unknown> {
  const organisationId = organisation.organisation.id;
  switch (subject) {
    case DirectoryPattern.VerifyCredential:
      return { tokenHash: hashToken(organisation.apiKey) };
    case DirectoryPattern.ResolveOfferAudience:
      return { organisationId, userId: organisation.user.id, workerIds: [organisation.workers[0].id] };
    case DirectoryPattern.ResolveWebhookTarget:
    case DirectoryPattern.ResolveOrganisationContacts:
      return { organisationId };
    case NotificationPattern.SendSignInLinks:
      return { to: 'ada@example.com', audience: 'portal', links: [{ label: 'Fuzz Ltd', code: 'A'.repeat(43) }], expiresInMinutes: 15 };
    default:
      throw new Error(`no valid request for ${subject}`);
  }
}

async function ask(subject: string, bytes: Uint8Array): Promise<RequestReplyAnswer<unknown>> {
  const reply = await nc.request(`${platform.events.prefix}${subject}`, bytes, { timeout: ANSWER_WITHIN_MS });
  return reply.json<RequestReplyAnswer<unknown>>();
}

/** What is wrong with the answer to a hostile request, if anything. */
async function answerProblem(message: HostileMessage): Promise<string | undefined> {
  let answer: RequestReplyAnswer<unknown>;
  try {
    answer = await ask(message.subject, message.bytes);
  } catch (error) {
    return `no answer: ${(error as Error).message}`;
  }
  if (answer.ok === true) return message.subject === DirectoryPattern.VerifyCredential ? credentialProblem(message, answer.result) : undefined;
  if (answer.ok !== false || typeof answer.error !== 'string') return `an answer of neither form: ${JSON.stringify(answer).slice(0, 200)}`;
  if (/\n\s+at |\bSELECT\b|\bINSERT\b|\bUPDATE\b|QueryFailedError/.test(answer.error)) return `a failure that says too much: ${answer.error.slice(0, 300)}`;
  return undefined;
}

/** A credential check grants something only for the token asked about: the seeded key's exact hash. */
function credentialProblem(message: HostileMessage, verdict: unknown): string | undefined {
  let asked: unknown;
  try {
    asked = (JSON.parse(Buffer.from(message.bytes).toString('utf8')) as { tokenHash?: unknown } | null)?.tokenHash;
  } catch {
    asked = undefined;
  }
  const kind = (verdict as { kind?: unknown } | null)?.kind;
  return asked !== hashToken(organisation.apiKey) && kind !== 'none' ? `a verdict of ${String(kind)} for a token not asked about` : undefined;
}

beforeAll(async () => {
  mail = await SmtpSink.start();
  platform = await startTestPlatform(['contact-directory', 'notification-service'], { SMTP_URL: mail.url });
  organisation = await seedOrganisation(new DirectoryAdminClient(platform.url('contact-directory'), TEST_ADMIN_TOKEN), { name: 'Hostile requests', workers: 1 });
  nc = await platform.events.connect();
}, 120_000);

afterAll(async () => {
  await nc?.close();
  await platform?.stop();
  await mail?.close();
});

describe(`hostile requests on the bus (REQUEST_FUZZ_SEED=${SEED})`, () => {
  const subjects = [...Object.values(DirectoryPattern), ...Object.values(NotificationPattern)];

  it(`answers each of ${COUNT} of each subject in time, with a result or a plain failure`, async () => {
    const requests = subjects.flatMap((subject, index) => fc.sample(hostileMessages([subject], validRequest), { numRuns: COUNT, seed: SEED + index }));
    const problems: string[] = [];
    for (const request of requests) {
      const problem = await answerProblem(request);
      if (problem) problems.push(`${request.subject} with ${request.description}: ${problem}`);
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it('answers valid requests afterwards: the credential check every service relies on, and a sign-in e-mail', async () => {
    const verdict = await ask(DirectoryPattern.VerifyCredential, new TextEncoder().encode(JSON.stringify(validRequest(DirectoryPattern.VerifyCredential))));
    expect(verdict).toEqual({ ok: true, result: expect.objectContaining({ kind: 'organisation', organisationId: organisation.organisation.id }) });
    const to = `${randomUUID()}@example.com`;
    const queued = await ask(NotificationPattern.SendSignInLinks, new TextEncoder().encode(JSON.stringify({ ...validRequest(NotificationPattern.SendSignInLinks), to })));
    expect(queued).toEqual({ ok: true, result: expect.objectContaining({ queued: true }) });
  });
});
