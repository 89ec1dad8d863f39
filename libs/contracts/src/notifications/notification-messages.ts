import { type Static, Type } from '@sinclair/typebox';

/**
 * Request/reply messages answered by notification-service over NATS (`RequestReply` in libs/messaging;
 * subjects carry the deployment's NATS_SUBJECT_PREFIX).
 */
export const NotificationPattern = {
  /**
   * contact-directory asks for one sign-in e-mail. The request carries sign-in codes in clear: each is
   * single-use and lives 15 minutes, and only notification-service may subscribe to this subject (BUS_ROLES).
   */
  SendSignInLinks: 'notifications.sign-in-links.send',
} as const;

export const SIGN_IN_AUDIENCES = ['portal', 'worker'] as const;
export type SignInAudience = (typeof SIGN_IN_AUDIENCES)[number];

/** Most accounts one address may have a link for in one e-mail (contact-directory sends no more). */
export const MAX_SIGN_IN_LINKS = 50;

/** One account the address may sign in as: its label (the organisation's name for portal users) and its code. */
export const SignInLink = Type.Object({
  label: Type.String({ minLength: 1, maxLength: 500 }),
  code: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
});
export type SignInLink = Static<typeof SignInLink>;

/**
 * `{to, audience, links, expiresInMinutes, delayMs?}`: e-mail `to` one message with a link per account. notification-service builds
 * each link from its PORTAL_URL, with the code in the fragment so it never reaches a server's log.
 */
export const SendSignInLinksRequest = Type.Object({
  to: Type.String({ minLength: 3, maxLength: 320 }),
  audience: Type.Union([Type.Literal('portal'), Type.Literal('worker')]),
  links: Type.Array(SignInLink, { minItems: 1, maxItems: MAX_SIGN_IN_LINKS }),
  /** How long the links work, for the e-mail to say. */
  expiresInMinutes: Type.Integer({ minimum: 1, maximum: 1440 }),
  /**
   * Send it this many milliseconds from now, not at once: contact-directory paces the e-mails of an
   * address asked for more often than its hourly number (the links work for that long more).
   */
  delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 24 * 3600 * 1000 })),
});
export type SendSignInLinksRequest = Static<typeof SendSignInLinksRequest>;

/** The e-mail is queued (sent with retries); `jobId` names it. */
export interface SendSignInLinksReply {
  queued: true;
  jobId: string;
}
