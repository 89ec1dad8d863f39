import {
  CREDENTIAL_REVOKED_SUBJECT,
  DirectoryPattern,
  EventSubject,
  NotificationPattern,
  WEBHOOK_TARGET_CHANGED_SUBJECT,
} from '@availability/contracts';
import { jetStreamConsumers } from '../consumer/durable-consumer.js';

/**
 * What each service may do on the bus: the one source of truth for its NATS permissions. The
 * nats-server authorisation config (`npm run nats:config`, the dev launcher, the test harness) is
 * generated from this table, and the services read their consumer subjects from it, so a subject a
 * service uses but is not allowed here fails in every test rather than in production.
 */
export const BUS_SERVICES = ['contact-directory', 'offers-api', 'notification-service', 'webhook-dispatcher'] as const;
export type BusService = (typeof BUS_SERVICES)[number];

export interface BusRole {
  /** Events it publishes onto the stream (its outbox relay). */
  publishes: readonly EventSubject[];
  /** Its durable JetStream consumer: name and filter subjects (never reorder: names follow positions). */
  consumes?: { durableName: string; subjects: readonly EventSubject[] };
  /** Request subjects it asks (publishes to, reply on its own inbox). */
  asks: readonly string[];
  /** Request subjects it answers (subscribes to, replies to the asker's inbox only). */
  answers: readonly string[];
  /** Core NATS broadcasts it sends. */
  broadcasts: readonly string[];
  /** Core NATS broadcasts it listens to. */
  listens: readonly string[];
  /**
   * Whether it may update the stream's configuration (add subjects when the platform gains a subject
   * family). Every service may create the stream, so any start order works; only contact-directory,
   * already trusted with every credential, may change it, so no other service can point the stream
   * at a request subject.
   */
  managesStream?: boolean;
}

export const BUS_ROLES = {
  'contact-directory': {
    publishes: [EventSubject.ContactAdded, EventSubject.InviteCreated, EventSubject.SignInRequested],
    // Its own sign-in requests, handled after the answer (the answer must not tell who has an account).
    consumes: { durableName: 'contact-directory', subjects: [EventSubject.SignInRequested] },
    // Its own portal and worker endpoints verify credentials through its responder, like every service.
    // Sign-in links carry single-use codes: only notification-service may answer (subscribe to) that subject.
    asks: [DirectoryPattern.VerifyCredential, NotificationPattern.SendSignInLinks],
    answers: [
      DirectoryPattern.VerifyCredential,
      DirectoryPattern.ResolveOfferAudience,
      DirectoryPattern.ResolveWebhookTarget,
      DirectoryPattern.ResolveOrganisationContacts,
    ],
    broadcasts: [CREDENTIAL_REVOKED_SUBJECT, WEBHOOK_TARGET_CHANGED_SUBJECT],
    listens: [CREDENTIAL_REVOKED_SUBJECT, WEBHOOK_TARGET_CHANGED_SUBJECT],
    managesStream: true,
  },
  'offers-api': {
    publishes: [EventSubject.OfferCreated, EventSubject.OfferResponseRecorded, EventSubject.OfferCompleted, EventSubject.OfferWithdrawn],
    asks: [DirectoryPattern.VerifyCredential, DirectoryPattern.ResolveOfferAudience],
    answers: [],
    broadcasts: [],
    listens: [CREDENTIAL_REVOKED_SUBJECT],
  },
  'notification-service': {
    publishes: [],
    consumes: {
      durableName: 'notification-service',
      subjects: [
        EventSubject.OfferCreated,
        EventSubject.OfferCompleted,
        EventSubject.OfferWithdrawn,
        EventSubject.OfferResponseRecorded,
        EventSubject.InviteCreated,
        EventSubject.WebhookEndpointDisabled,
      ],
    },
    asks: [DirectoryPattern.VerifyCredential, DirectoryPattern.ResolveOrganisationContacts],
    answers: [NotificationPattern.SendSignInLinks],
    broadcasts: [],
    listens: [CREDENTIAL_REVOKED_SUBJECT],
  },
  'webhook-dispatcher': {
    publishes: [EventSubject.WebhookEndpointDisabled],
    consumes: { durableName: 'webhook-dispatcher', subjects: [EventSubject.OfferResponseRecorded, EventSubject.ContactAdded] },
    // Credential checks: its portal endpoints (an organisation's own deliveries) take portal user tokens.
    asks: [DirectoryPattern.ResolveWebhookTarget, DirectoryPattern.VerifyCredential],
    answers: [],
    broadcasts: [],
    listens: [WEBHOOK_TARGET_CHANGED_SUBJECT, CREDENTIAL_REVOKED_SUBJECT],
  },
} satisfies Record<BusService, BusRole>;

export interface BusNamespace {
  /** NATS_SUBJECT_PREFIX, e.g. `` or `staging.`. */
  subjectPrefix: string;
  /** EVENTS_STREAM, e.g. `PLATFORM`. */
  stream: string;
}

/** nats-server permissions of one user (the config file's `permissions` block). */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** Lets a responder reply once to the inbox of a request it received, and nowhere else. */
  allow_responses?: boolean;
}

/**
 * The inbox prefix of a service's replies (its requests' and JetStream API answers): only that
 * service may subscribe under it, so no other client can read its replies. Carries the subject
 * prefix so two environments on one cluster never share an inbox.
 */
export function busInboxPrefix(service: string, subjectPrefix: string): string {
  return `_INBOX.${subjectPrefix}${service}`;
}

export function isBusService(name: string): name is BusService {
  return (BUS_SERVICES as readonly string[]).includes(name);
}

export function busPermissions(service: BusService, { subjectPrefix, stream }: BusNamespace): NatsPermissions {
  const role: BusRole = BUS_ROLES[service];
  const subject = (name: string) => `${subjectPrefix}${name}`;
  const api = '$JS.API';
  const publish = [
    // jetstreamManager() checks JetStream is there; the stream is ensured at every start.
    `${api}.INFO`,
    `${api}.STREAM.INFO.${stream}`,
    `${api}.STREAM.CREATE.${stream}`,
    ...(role.managesStream ? [`${api}.STREAM.UPDATE.${stream}`] : []),
    ...role.publishes.map(subject),
    ...role.asks.map(subject),
    ...role.broadcasts.map(subject),
  ];
  if (role.consumes) {
    const consumers = jetStreamConsumers({
      stream,
      durableName: role.consumes.durableName,
      filterSubjects: role.consumes.subjects.map(subject),
      concurrency: 1,
    });
    for (const { name, subject: filter } of consumers) {
      publish.push(
        // The filter is part of the subject, so the server refuses a consumer of this name on any other events.
        `${api}.CONSUMER.CREATE.${stream}.${name}.${filter}`,
        `${api}.CONSUMER.INFO.${stream}.${name}`,
        `${api}.CONSUMER.MSG.NEXT.${stream}.${name}`,
        `$JS.ACK.${stream}.${name}.>`,
      );
    }
  }
  const subscribe = [`${busInboxPrefix(service, subjectPrefix)}.>`, ...role.answers.map(subject), ...role.listens.map(subject)];
  return {
    publish: { allow: unique(publish) },
    subscribe: { allow: unique(subscribe) },
    ...(role.answers.length > 0 ? { allow_responses: true } : {}),
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
