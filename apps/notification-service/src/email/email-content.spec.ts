import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { linksIn } from '@availability/testing';
import { answersDigestEmail, digestJobId, digestWindow, inviteEmail, inviteLinkUrl, offerClosedEmail, plainName, signInJobId, signInLink, signInLinksEmail, webhookDisabledEmail } from './email-content.js';

const offer = { offerId: 'o-1', title: 'Night pickers', notifyEmailAddress: 'ops@acme.test' };
const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 9, 0, s));

describe('digest window', () => {
  it('puts answers of one window in one job that runs at the window’s end', () => {
    expect(digestWindow(60_000 * 10 + 5, 60_000)).toEqual({ windowStart: 600_000, sendAt: 660_000 });
    expect(digestWindow(60_000 * 10 + 59_999, 60_000).windowStart).toBe(600_000);
    expect(digestWindow(60_000 * 11, 60_000).windowStart).toBe(660_000);
    expect(digestJobId('o-1', 600_000)).toBe('digest.o-1.600000');
  });
});

describe('the invitation link', () => {
  it('goes to the portal’s join page unless INVITE_LINK_URL names another', () => {
    expect(inviteLinkUrl({ INVITE_LINK_URL: '', PORTAL_URL: 'https://portal.example/' })).toBe('https://portal.example/join');
    expect(inviteLinkUrl({ INVITE_LINK_URL: 'https://app.example/get', PORTAL_URL: 'https://portal.example' })).toBe('https://app.example/get');
  });
});

describe('e-mail composition', () => {
  it('lists every answer since the last digest, oldest first, with changes of mind', () => {
    const mail = answersDigestEmail(offer, [
      { workerId: 'w1', response: 'applied', previousResponse: 'awaiting', respondedAt: at(1) },
      { workerId: 'w2', workerName: 'Bea', response: 'rejected', previousResponse: 'awaiting', respondedAt: at(2) },
      { workerId: 'w1', response: 'rejected', previousResponse: 'applied', respondedAt: at(3) },
    ]);
    expect(mail.to).toEqual(['ops@acme.test']);
    expect(mail.subject).toBe('New answers to “Night pickers”: 1 applied, 2 rejected');
    expect(mail.text.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- Worker w1: applied at 2030-01-01T09:00:01.000Z',
      '- Bea (w2): rejected at 2030-01-01T09:00:02.000Z',
      '- Worker w1: rejected (changed from applied) at 2030-01-01T09:00:03.000Z',
    ]);
  });

  it('completion names the assigned workers and includes answers not yet sent; withdrawal says everyone was told', () => {
    const done = offerClosedEmail(offer, { kind: 'completed', successfulWorkerIds: ['w1'], unsuccessfulWorkerIds: ['w2', 'w3'] }, [
      { workerId: 'w3', response: 'applied', previousResponse: 'awaiting', respondedAt: at(4) },
    ]);
    expect(done.subject).toBe('Offer complete: “Night pickers”');
    expect(done.text).toContain('1 worker(s) were assigned the work; 2 were told they were not selected.');
    expect(done.text).toContain('- Worker w1');
    expect(done.text).toContain('Answers since the last e-mail:\n- Worker w3: applied');
    const gone = offerClosedEmail(offer, { kind: 'withdrawn', workerIds: ['w1', 'w2'] }, []);
    expect(gone.subject).toBe('Offer withdrawn: “Night pickers”');
    expect(gone.text).not.toContain('Answers since');
  });

  it('invitation and webhook notices', () => {
    const invite = inviteEmail(
      {
        eventId: 'e',
        occurredAt: '',
        organisationId: 'org',
        inviteId: 'inv-1',
        invitedByUserId: 'u',
        invitedByName: 'Harriet',
        organisationName: 'Acme',
        name: 'Ann',
        emailAddress: 'ann@example.test',
        suggestedByOrganisationId: null,
      },
      'https://app.example/join?src=mail',
    );
    expect(invite.to).toEqual(['ann@example.test']);
    expect(invite.subject).toBe('Harriet invited you to work with Acme');
    expect(invite.text).toContain('https://app.example/join?src=mail&invite=inv-1');
    const notice = webhookDisabledEmail(['a@x.test', 'b@x.test'], null, 'https://hooks.example', 'answered 410');
    expect(notice.to).toEqual(['a@x.test', 'b@x.test']);
    expect(notice.text).toContain('your service at https://hooks.example');
  });
});

describe('names in the invitation e-mail', () => {
  const event = (name: string, invitedByName = 'Harriet', organisationName = 'Acme') => ({
    eventId: 'e',
    occurredAt: '',
    organisationId: 'org',
    inviteId: 'inv-1',
    invitedByUserId: 'u',
    invitedByName,
    organisationName,
    name,
    emailAddress: 'ann@example.test',
    suggestedByOrganisationId: null,
  });
  /** Text with links, addresses, look-alikes and invisible characters mixed in. */
  const hostile = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 60 }),
    fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'o', 'm', '.', '．', '。', ':', '/', '@', ' ', '\n', '\u202E', '\u200B', 'w', 'x', '1'), maxLength: 60 }),
    fc.tuple(fc.string({ maxLength: 10 }), fc.oneof(fc.webUrl(), fc.domain(), fc.emailAddress(), fc.ipV4()), fc.string({ maxLength: 10 })).map((parts) => parts.join('')),
  );

  it('no mail client can make a link, an address or a new line of a name, whatever the event holds', () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, (name, invitedBy, organisation) => {
        const mail = inviteEmail(event(name, invitedBy, organisation), 'https://app.example/join');
        const [hello] = mail.text.split('\n');
        for (const text of [plainName(name), plainName(invitedBy), plainName(organisation)]) {
          expect(linksIn(text)).toEqual([]);
          expect(text).not.toMatch(/[\p{C}\p{Zl}\p{Zp}]/u);
          expect([...text].length).toBeLessThanOrEqual(100);
        }
        expect(hello).toBe(`Hello ${plainName(name)},`);
        expect(linksIn(mail.subject)).toEqual([]);
        expect(linksIn(mail.text)).toEqual(['https://app.example/join?invite=inv-1']);
      }),
      { numRuns: 100 },
    );
  });

  it('leaves a plain name as it is, and breaks what would link', () => {
    for (const name of ['Ann Example', 'Zoë O’Brien-Smith', 'J. R. R. Tolkien', '李小龍', 'Smith Jr.']) expect(plainName(name)).toBe(name);
    expect(plainName('Win at WIN.example.com!')).toBe('Win at WIN. example. com!');
    expect(plainName('ｅｘａｍｐｌｅ．ｃｏｍ')).toBe('example. com');
    expect(plainName('me@evil.test')).toBe('me@ evil. test');
    expect(plainName('http://x.test')).toBe('http: / / x. test');
    expect(plainName('Ann\n\nClick\u202Ehere\u200B')).toBe('Ann Click here');
    expect(plainName('a'.repeat(150))).toBe(`${'a'.repeat(99)}…`);
  });
});

describe('sign-in e-mail', () => {
  const code = 'q7GQ0mJx1o3lqJ4n0cZ8k0wQpV9tYv2Qm1nXk5sVv8A';
  const other = 'Zz9_-0mJx1o3lqJ4n0cZ8k0wQpV9tYv2Qm1nXk5sVv8';

  it('puts the code in the fragment of the audience’s page, whatever the portal address ends with', () => {
    expect(signInLink('http://localhost:3005', 'portal', code)).toBe(`http://localhost:3005/sign-in#code=${code}`);
    expect(signInLink('https://portal.example/app/', 'worker', code)).toBe(`https://portal.example/app/worker/sign-in#code=${code}`);
    expect(new URL(signInLink('https://portal.example', 'portal', code)).search).toBe('');
  });

  it('lists one link per account under its label, and says how long they work', () => {
    const mail = signInLinksEmail(
      { to: 'sam@acme.example', audience: 'portal', expiresInMinutes: 15, links: [{ label: 'Acme Staffing', code }, { label: 'Northside', code: other }] },
      'https://portal.example',
    );
    expect(mail.to).toEqual(['sam@acme.example']);
    expect(mail.subject).toBe('Your sign-in link for the Availability Platform portal');
    expect(mail.text).toContain(`Acme Staffing:\nhttps://portal.example/sign-in#code=${code}\n`);
    expect(mail.text).toContain(`Northside:\nhttps://portal.example/sign-in#code=${other}\n`);
    expect(mail.text).toContain('Each link works once, within 15 minutes.');
    const worker = signInLinksEmail({ to: 'ann@example.test', audience: 'worker', expiresInMinutes: 1, links: [{ label: 'Ann (Acme)', code }] }, 'https://portal.example');
    expect(worker.subject).toBe('Your sign-in link for the Availability Platform');
    expect(worker.text).toContain(`Ann (Acme):\nhttps://portal.example/worker/sign-in#code=${code}`);
    expect(worker.text).toContain('The link works once, within 1 minute.');
  });

  it('one job per set of codes, its id free of the codes themselves and of a single colon', () => {
    const request = { to: 'a@b.c', audience: 'portal' as const, expiresInMinutes: 15, links: [{ label: 'A', code }] };
    expect(signInJobId(request)).toBe(signInJobId({ ...request, to: 'other@b.c' }));
    expect(signInJobId(request)).not.toBe(signInJobId({ ...request, links: [{ label: 'A', code: other }] }));
    expect(signInJobId(request)).toMatch(/^sign-in\.[0-9a-f]{32}$/);
    expect(signInJobId(request)).not.toContain(code);
  });
});
