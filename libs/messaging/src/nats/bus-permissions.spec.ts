import { describe, expect, it } from '@jest/globals';
import { DirectoryPattern, EventSubject, NotificationPattern } from '@availability/contracts';
import { createSealingKeys, SealedBox } from '../sealing/sealed-box.js';
import { openWebhookTarget, sealWebhookTarget } from '../sealing/webhook-target-seal.js';
import { BUS_SERVICES, busInboxPrefix, busPermissions } from './bus-permissions.js';

const namespace = { subjectPrefix: 'stg.', stream: 'PLATFORM' };
const permissions = Object.fromEntries(BUS_SERVICES.map((service) => [service, busPermissions(service, namespace)]));
const who = (kind: 'publish' | 'subscribe', subject: string) => BUS_SERVICES.filter((service) => permissions[service][kind].allow.includes(subject)).sort();

describe('bus permissions', () => {
  it('only contact-directory answers the requests that carry secrets or credentials, and only those who need them ask', () => {
    expect(who('subscribe', `stg.${DirectoryPattern.ResolveWebhookTarget}`)).toEqual(['contact-directory']);
    expect(who('subscribe', `stg.${DirectoryPattern.VerifyCredential}`)).toEqual(['contact-directory']);
    expect(who('publish', `stg.${DirectoryPattern.ResolveWebhookTarget}`)).toEqual(['webhook-dispatcher']);
    expect(who('publish', `stg.${DirectoryPattern.VerifyCredential}`)).toEqual(['contact-directory', 'notification-service', 'offers-api', 'webhook-dispatcher']);
    expect(who('publish', `stg.${DirectoryPattern.ResolveOrganisationContacts}`)).toEqual(['notification-service']);
    expect(permissions['contact-directory'].allow_responses).toBe(true);
    expect(BUS_SERVICES.filter((service) => permissions[service].allow_responses)).toEqual(['contact-directory', 'notification-service']);
  });

  it('sign-in codes cross the bus only from contact-directory to notification-service', () => {
    expect(who('subscribe', `stg.${NotificationPattern.SendSignInLinks}`)).toEqual(['notification-service']);
    expect(who('publish', `stg.${NotificationPattern.SendSignInLinks}`)).toEqual(['contact-directory']);
  });

  it('sign-in requests (e-mail addresses) are read by contact-directory alone, which writes them', () => {
    const readers = BUS_SERVICES.filter((service) => permissions[service].publish.allow.some((subject) => subject.startsWith('$JS.API.CONSUMER.CREATE.') && subject.endsWith(`.stg.${EventSubject.SignInRequested}`)));
    expect(readers).toEqual(['contact-directory']);
    expect(permissions['contact-directory'].publish.allow).toContain(`$JS.API.CONSUMER.CREATE.PLATFORM.contact-directory.stg.${EventSubject.SignInRequested}`);
    expect(who('publish', `stg.${EventSubject.SignInRequested}`)).toEqual(['contact-directory']);
  });

  it('each event has exactly one publisher', () => {
    for (const subject of Object.values(EventSubject)) expect(who('publish', `stg.${subject}`)).toHaveLength(1);
    expect(who('publish', `stg.${EventSubject.OfferResponseRecorded}`)).toEqual(['offers-api']);
  });

  it("a service subscribes under its own inbox only, and grants no wildcard over anyone else's subjects", () => {
    for (const service of BUS_SERVICES) {
      const { publish, subscribe } = permissions[service];
      const inboxes = subscribe.allow.filter((subject) => subject.startsWith('_INBOX'));
      expect(inboxes).toEqual([`${busInboxPrefix(service, 'stg.')}.>`]);
      const wildcards = [...publish.allow, ...subscribe.allow].filter((subject) => /(^|\.)[*>]($|\.)/.test(subject));
      expect(wildcards.every((subject) => subject === `${busInboxPrefix(service, 'stg.')}.>` || /^\$JS\.ACK\.PLATFORM\.[\w-]+\.>$/.test(subject))).toBe(true);
      expect([...publish.allow, ...subscribe.allow].every((subject) => subject.startsWith('$JS.') || subject.startsWith('stg.') || subject.startsWith('_INBOX.stg.'))).toBe(true);
    }
  });

  it("a durable consumer can be created only on its own events, and only contact-directory may change the stream's configuration", () => {
    expect(permissions['webhook-dispatcher'].publish.allow).toEqual(
      expect.arrayContaining([
        '$JS.API.CONSUMER.CREATE.PLATFORM.webhook-dispatcher-1.stg.offers.response.recorded',
        '$JS.API.CONSUMER.CREATE.PLATFORM.webhook-dispatcher-2.stg.contacts.added',
        '$JS.API.CONSUMER.MSG.NEXT.PLATFORM.webhook-dispatcher-1',
        '$JS.ACK.PLATFORM.webhook-dispatcher-2.>',
      ]),
    );
    expect(permissions['webhook-dispatcher'].publish.allow.filter((subject) => subject.startsWith('$JS.API.CONSUMER.CREATE'))).toHaveLength(2);
    expect(who('publish', '$JS.API.STREAM.UPDATE.PLATFORM')).toEqual(['contact-directory']);
    expect(who('publish', '$JS.API.STREAM.CREATE.PLATFORM')).toEqual([...BUS_SERVICES].sort());
    expect(BUS_SERVICES.flatMap((service) => permissions[service].publish.allow).some((subject) => /STREAM\.DELETE|STREAM\.PURGE|CONSUMER\.DELETE/.test(subject))).toBe(false);
  });
});

describe('sealed webhook targets', () => {
  const directory = createSealingKeys();
  const dispatcher = createSealingKeys();
  const organisationId = '3b0d5a54-55f3-4a55-9a31-0a7e2a7e1c11';
  const target = { baseUrl: 'https://hooks.example', secrets: ['whsec-new', 'whsec-old'] };
  const reply = sealWebhookTarget(new SealedBox(directory.seed), dispatcher.publicKey, organisationId, target);

  it('carries no secret in clear, and opens only with the dispatcher’s key, from the directory’s', () => {
    expect(JSON.stringify(reply)).not.toMatch(/whsec/);
    expect(openWebhookTarget(new SealedBox(dispatcher.seed), directory.publicKey, organisationId, reply)).toEqual(target);
    expect(() => openWebhookTarget(new SealedBox(createSealingKeys().seed), directory.publicKey, organisationId, reply)).toThrow(/does not open/);
    const forger = createSealingKeys();
    const forged = sealWebhookTarget(new SealedBox(forger.seed), dispatcher.publicKey, organisationId, { baseUrl: 'https://evil.example', secrets: ['x'] });
    expect(() => openWebhookTarget(new SealedBox(dispatcher.seed), directory.publicKey, organisationId, forged)).toThrow(/does not open/);
  });

  it("refuses a sealed target replayed for another organisation or base URL, or altered", () => {
    const dispatcherBox = new SealedBox(dispatcher.seed);
    expect(() => openWebhookTarget(dispatcherBox, directory.publicKey, 'another-organisation', reply)).toThrow(/another organisation/);
    expect(() => openWebhookTarget(dispatcherBox, directory.publicKey, organisationId, { ...reply, baseUrl: 'https://evil.example' })).toThrow(/another organisation or base URL/);
    const bytes = Buffer.from(reply.sealedTarget ?? '', 'base64');
    bytes[bytes.length - 1] ^= 1;
    expect(() => openWebhookTarget(dispatcherBox, directory.publicKey, organisationId, { ...reply, sealedTarget: bytes.toString('base64') })).toThrow(/does not open/);
  });

  it('an organisation without a base URL or secret gets no target, and nothing is sealed', () => {
    const none = sealWebhookTarget(new SealedBox(directory.seed), dispatcher.publicKey, organisationId, { baseUrl: null, secrets: [] });
    expect(none).toEqual({ baseUrl: null, sealedTarget: null });
    expect(openWebhookTarget(new SealedBox(dispatcher.seed), directory.publicKey, organisationId, none)).toEqual({ baseUrl: null, secrets: [] });
  });
});
