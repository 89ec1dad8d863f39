import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type HttpResult, issuePortalUserToken, request, seedOrganisation, type SeededOrganisation } from '@availability/platform-client';
import { eventually, linksIn, queryDatabase, SmtpSink, startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';

/**
 * Invitations are e-mail the platform sends to anyone in an organisation's name, so they must not be
 * a way to send spam: only the organisation's admins invite, each organisation sends at most
 * INVITATIONS_PER_ORGANISATION_PER_DAY a day however many requests race for them, and the one text
 * of theirs the e-mail carries, the invited person's name, is a plain name no mail client makes a
 * link of. contact-directory and notification-service run as processes; the e-mail goes through a
 * real SMTP server on loopback.
 */
const PER_DAY = 12;
/** No INVITE_LINK_URL: invitations link to the portal's join page. */
const PORTAL_URL = 'https://portal.invitations.example';

let platform: TestPlatform;
let smtp: SmtpSink;

interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: Record<string, string[]>;
}

interface Inviter {
  organisation: SeededOrganisation;
  adminToken: string;
  memberToken: string;
}

type Invitation = { name: string; emailAddress: string };
type Invited = { invitations: Array<{ id: string; emailAddress: string; created: boolean }> };

beforeAll(async () => {
  smtp = await SmtpSink.start();
  platform = await startTestPlatform(['contact-directory', 'notification-service'], {
    SMTP_URL: smtp.url,
    PORTAL_URL,
    INVITATIONS_PER_ORGANISATION_PER_DAY: String(PER_DAY),
    PUSH_TRANSPORT: 'recording',
    EMAIL_BACKOFF_MS: '100',
  });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await smtp?.close();
});

/** A hirer with an admin and a member, each signed in. */
async function inviter(name: string): Promise<Inviter> {
  const organisation = await seedOrganisation(platform.admin, { name, kind: 'hirer', workers: 0 });
  const member = await platform.admin.createUser(organisation.organisation.id, { email: `member@${organisation.organisation.id.slice(0, 8)}.example`, name: `${name} member`, role: 'member' });
  const directory = platform.url('contact-directory');
  return {
    organisation,
    adminToken: (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, organisation.user.id)).token,
    memberToken: (await issuePortalUserToken(directory, TEST_ADMIN_TOKEN, member.id)).token,
  };
}

function invite(token: string, invitations: Invitation[]): Promise<HttpResult<Invited & Problem>> {
  return request<Invited & Problem>(platform.url('contact-directory'), 'POST', '/portal/invitations', { headers: { authorization: `Bearer ${token}` }, body: { invitations } });
}

function expectProblem(result: HttpResult<unknown>, status: number, slug: string): Problem {
  expect({ status: result.status, contentType: result.headers.get('content-type') }).toEqual({ status, contentType: expect.stringMatching(/^application\/problem\+json/) });
  const problem = result.json as Problem;
  expect(problem.type).toBe(`https://availability.example/problems/${slug}`);
  return problem;
}

/** `count` people nobody invited yet, at a domain of their own so the mails of one test are told apart. */
function people(count: number, domain = `${randomUUID().slice(0, 8)}.example`): Invitation[] {
  return Array.from({ length: count }, (_, i) => ({ name: `Person ${String.fromCharCode(65 + (i % 26))}`, emailAddress: `person.${i}@${domain}` }));
}

async function storedInvitations(organisationId: string): Promise<number> {
  const rows = await queryDatabase<{ count: number }>(platform.database.url, 'SELECT count(*)::int AS count FROM directory.invitation WHERE organisation_id = $1', [organisationId]);
  return rows[0].count;
}

async function writtenEvents(organisationId: string): Promise<number> {
  const rows = await queryDatabase<{ count: number }>(
    platform.database.url,
    `SELECT count(*)::int AS count FROM directory.outbox WHERE subject LIKE '%invites.created' AND payload::jsonb ->> 'organisationId' = $1`,
    [organisationId],
  );
  return rows[0].count;
}

const mailsTo = (domain: string) => smtp.mails.filter((mail) => mail.to.some((to) => to.endsWith(`@${domain}`)));

describe('who may invite', () => {
  it('only an admin of the organisation: a member is told 403 and nothing is stored or sent', async () => {
    const hirer = await inviter('Careful Hotels');
    const domain = `${randomUUID().slice(0, 8)}.example`;
    const [theirs, mine] = [people(1, `member.${domain}`), people(1, `admin.${domain}`)];
    const refused = expectProblem(await invite(hirer.memberToken, theirs), 403, 'forbidden');
    expect(refused.detail).toMatch(/admin/);
    expect(await storedInvitations(hirer.organisation.organisation.id)).toBe(0);

    expect((await invite(hirer.adminToken, mine)).status).toBe(201);
    await eventually(() => mailsTo(`admin.${domain}`).length === 1, 15_000, "the admin's invitation");
    expect(await storedInvitations(hirer.organisation.organisation.id)).toBe(1);
    expect(await writtenEvents(hirer.organisation.organisation.id)).toBe(1);
    expect(mailsTo(`member.${domain}`)).toEqual([]);
  });
});

describe('invitations a day', () => {
  it(`at most ${PER_DAY} e-mails an organisation a day, however many requests race for them; then 429 with Retry-After`, async () => {
    const hirer = await inviter('Eager Hotels');
    const organisationId = hirer.organisation.organisation.id;
    const domain = `${randomUUID().slice(0, 8)}.example`;
    const batches = Array.from({ length: 6 }, (_, batch) => people(5, `b${batch}.${domain}`));

    // Six requests of five new people each at once: two fit (10 of 12); a third would make 15.
    const answers = await Promise.all(batches.map((batch) => invite(hirer.adminToken, batch)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 429, 429, 429, 429]);
    const refused = answers.find((answer) => answer.status === 429) as HttpResult<Problem>;
    const problem = expectProblem(refused, 429, 'invitation-limit-reached');
    expect(problem.detail).toContain(String(PER_DAY));
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 24 * 3600).toBe(true);

    // Two more fit exactly; one more does not. Inviting again people already invited sends nothing and costs nothing.
    const accepted = batches.filter((_, i) => answers[i].status === 201).flat();
    expect((await invite(hirer.adminToken, people(2, `last.${domain}`))).status).toBe(201);
    expectProblem(await invite(hirer.adminToken, people(1, `over.${domain}`)), 429, 'invitation-limit-reached');
    const again = await invite(hirer.adminToken, accepted.slice(0, 3));
    expect(again.status).toBe(201);
    expect(again.json.invitations.map((invitation) => invitation.created)).toEqual([false, false, false]);

    expect(await storedInvitations(organisationId)).toBe(PER_DAY);
    expect(await writtenEvents(organisationId)).toBe(PER_DAY);
    await eventually(() => mailsTo(`last.${domain}`).length === 2 && accepted.every((person) => smtp.to(person.emailAddress).length === 1), 30_000, 'the invitations that fit');
    expect(smtp.mails.filter((mail) => mail.to.some((to) => to.endsWith(domain))).length).toBe(PER_DAY);

    // The limit is the organisation's: another organisation invites as before.
    const other = await inviter('Other Hotels');
    expect((await invite(other.adminToken, people(5))).status).toBe(201);
  });
});

describe("the invited person's name", () => {
  it('refuses links, addresses, markup, control and bidi characters, digits and overlong names, naming the field; nothing is stored', async () => {
    const hirer = await inviter('Strict Hotels');
    const refused = [
      'Visit example.com today',
      'www.cheap-watches',
      'Ann http://evil.test',
      'javascript:alert(1)',
      'me@evil.test',
      'ＡＮＮ．ＣＯＭ',
      'evil。com',
      'Ann <b>Bold</b>',
      'Ann &amp; Co',
      'Ann\u202Elive.com',
      'Ann\u200BSmith',
      'Ann\nClick here',
      'Ann\u0007',
      'Call 0800 123 456',
      'A'.repeat(101),
      '   ',
    ];
    for (const name of refused) {
      const problem = expectProblem(await invite(hirer.adminToken, [{ name: 'Fine Name', emailAddress: 'fine@strict.example' }, { name, emailAddress: 'jo@strict.example' }]), 400, 'validation-failed');
      expect({ name, fields: Object.keys(problem.errors ?? {}) }).toEqual({ name, fields: ['invitations[1].name'] });
    }
    expect(await storedInvitations(hirer.organisation.organisation.id)).toBe(0);
  });

  it('refuses any name holding a web or e-mail address (property)', async () => {
    const hirer = await inviter('Property Hotels');
    const address = fc.oneof(fc.webUrl(), fc.domain(), fc.emailAddress());
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('', 'Ann ', 'Visit '), address, fc.constantFrom('', ' now'), async (before, link, after) => {
        const result = await invite(hirer.adminToken, [{ name: `${before}${link}${after}`, emailAddress: 'jo@property.example' }]);
        expect(result.status).toBe(400);
        expect(Object.keys(result.json.errors ?? {})).toEqual(['invitations[0].name']);
      }),
      { numRuns: 40 },
    );
    expect(await storedInvitations(hirer.organisation.organisation.id)).toBe(0);
  });

  it('takes a plain name in any script, tidied, and the e-mail shows it with no link but the invitation link', async () => {
    const hirer = await inviter('Welcoming Hotels');
    const domain = `${randomUUID().slice(0, 8)}.example`;
    const names = [
      ['  Zoë   O’Brien-Smith ', 'Zoë O’Brien-Smith'],
      ['J. R. R. Tolkien', 'J. R. R. Tolkien'],
      ['李小龍', '李小龍'],
      ['Ａｎｎ\u00A0Ｌｅｅ', 'Ann Lee'],
    ];
    const answer = await invite(hirer.adminToken, names.map(([name], i) => ({ name, emailAddress: `n${i}@${domain}` })));
    expect(answer.status).toBe(201);
    for (const [i, [, shown]] of names.entries()) {
      const mail = await eventually(() => smtp.to(`n${i}@${domain}`)[0] ?? false, 15_000, `the invitation of ${shown}`);
      expect(mail.text).toContain(`Hello ${shown},`);
      expect(linksIn(mail.text).filter((link) => !link.startsWith(`${PORTAL_URL}/join?invite=`))).toEqual([]);
    }
  });
});
