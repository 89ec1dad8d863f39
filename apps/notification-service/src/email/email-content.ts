import { createHash } from 'node:crypto';
import type { InviteCreatedEvent, SendSignInLinksRequest } from '@availability/contracts';

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

export interface OfferSummary {
  offerId: string;
  title: string;
  notifyEmailAddress: string;
}

export interface AnswerLine {
  workerId: string;
  workerName?: string;
  response: string;
  previousResponse: string;
  respondedAt: Date;
}

/** The digest window an answer at `now` falls in, and when its e-mail goes (the window's end). */
export function digestWindow(now: number, windowMs: number): { windowStart: number; sendAt: number } {
  const windowStart = Math.floor(now / windowMs) * windowMs;
  return { windowStart, sendAt: windowStart + windowMs };
}

/** BullMQ forbids a single `:` in custom ids; one digest job per offer and window. */
export function digestJobId(offerId: string, windowStart: number): string {
  return `digest.${offerId}.${windowStart}`;
}

function who(answer: AnswerLine): string {
  return answer.workerName ? `${answer.workerName} (${answer.workerId})` : `Worker ${answer.workerId}`;
}

function answerLines(answers: AnswerLine[]): string[] {
  return answers.map((answer) => {
    const changed = answer.previousResponse && answer.previousResponse !== 'awaiting' ? ` (changed from ${answer.previousResponse})` : '';
    return `- ${who(answer)}: ${answer.response}${changed} at ${answer.respondedAt.toISOString()}`;
  });
}

function tally(answers: AnswerLine[]): string {
  const applied = answers.filter((a) => a.response === 'applied').length;
  const rejected = answers.filter((a) => a.response === 'rejected').length;
  return `${applied} applied, ${rejected} rejected`;
}

/** Answers since the last e-mail, oldest first. */
export function answersDigestEmail(offer: OfferSummary, answers: AnswerLine[]): MailMessage {
  return {
    to: [offer.notifyEmailAddress],
    subject: `New answers to “${offer.title}”: ${tally(answers)}`,
    text: [
      `Workers answered your offer “${offer.title}” (${offer.offerId}):`,
      '',
      ...answerLines(answers),
      '',
      'You get at most one of these e-mails a minute per offer.',
    ].join('\n'),
  };
}

export type OfferOutcome =
  | { kind: 'completed'; successfulWorkerIds: string[]; unsuccessfulWorkerIds: string[] }
  | { kind: 'withdrawn'; workerIds: string[] };

/** The one e-mail when an offer ends, with any answers not yet e-mailed. */
export function offerClosedEmail(offer: OfferSummary, outcome: OfferOutcome, pending: AnswerLine[]): MailMessage {
  const lines =
    outcome.kind === 'completed'
      ? [
          `Your offer “${offer.title}” (${offer.offerId}) is complete.`,
          `${outcome.successfulWorkerIds.length} worker(s) were assigned the work; ${outcome.unsuccessfulWorkerIds.length} were told they were not selected.`,
          ...(outcome.successfulWorkerIds.length > 0 ? ['', 'Assigned:', ...outcome.successfulWorkerIds.map((id) => `- Worker ${id}`)] : []),
        ]
      : [`Your offer “${offer.title}” (${offer.offerId}) was withdrawn.`, `All ${outcome.workerIds.length} worker(s) it was sent to have been told.`];
  if (pending.length > 0) lines.push('', 'Answers since the last e-mail:', ...answerLines(pending));
  return {
    to: [offer.notifyEmailAddress],
    subject: outcome.kind === 'completed' ? `Offer complete: “${offer.title}”` : `Offer withdrawn: “${offer.title}”`,
    text: lines.join('\n'),
  };
}

/** Most characters of a name in an e-mail: a longer one is cut, with an ellipsis. */
const MAX_NAME_CHARACTERS = 100;

/**
 * A name as plain text no mail client makes a link, an address or a new line of, whatever an event
 * carries (contact-directory checks invited people's names, but an event may predate the check):
 * NFKC (full-width look-alikes become the characters a client reads), control, formatting and bidi
 * characters and line breaks become spaces, runs of spaces one, and a space goes after each
 * `.` `:` `@` `/` `\` or ideographic full stop that a character follows, so `win.example.com` reads
 * `win. example. com` and `http://x` reads `http: / / x`. The e-mail is text/plain only: nothing renders as markup.
 */
export function plainName(text: string): string {
  const plain = text
    .normalize('NFKC')
    .replace(/[\p{C}\p{Z}]/gu, ' ')
    .replace(/([.:@/\\\u3002])(?=\S)/gu, '$1 ')
    .replace(/ {2,}/g, ' ')
    .trim();
  const characters = [...plain];
  return characters.length > MAX_NAME_CHARACTERS ? `${characters.slice(0, MAX_NAME_CHARACTERS - 1).join('').trimEnd()}…` : plain;
}

/** Where invitations link: INVITE_LINK_URL when set, else the portal's join page. */
export function inviteLinkUrl(config: { INVITE_LINK_URL: string; PORTAL_URL: string }): string {
  return config.INVITE_LINK_URL || `${config.PORTAL_URL.replace(/\/+$/, '')}/join`;
}

export function inviteEmail(event: InviteCreatedEvent, inviteLinkUrl: string): MailMessage {
  const url = new URL(inviteLinkUrl);
  url.searchParams.set('invite', event.inviteId);
  const [name, invitedBy, organisation] = [event.name, event.invitedByName, event.organisationName].map(plainName);
  return {
    to: [event.emailAddress],
    subject: `${invitedBy} invited you to work with ${organisation}`,
    text: [
      `Hello ${name},`,
      '',
      `${invitedBy} of ${organisation} invited you to receive offers of work through the Availability Platform.`,
      '',
      `Get the app and accept the invitation: ${url.toString()}`,
      '',
      'If you did not expect this e-mail, you can ignore it.',
    ].join('\n'),
  };
}

export function webhookDisabledEmail(adminEmailAddresses: string[], organisationName: string | null, baseUrl: string, reason: string): MailMessage {
  return {
    to: adminEmailAddresses,
    subject: 'Webhook calls to your service have been stopped',
    text: [
      `The Availability Platform has stopped calling ${organisationName ? `${organisationName}'s` : 'your'} service at ${baseUrl}.`,
      '',
      `Reason: ${reason}`,
      '',
      'Fix the service, then save its base address again on the company profile in the portal: the platform checks /test and /test/auth and, when both answer 200, starts calling it again.',
    ].join('\n'),
  };
}

/**
 * A sign-in link: the portal's page for the audience with the code in the fragment, which browsers
 * never send to a server, so the code reaches no server's log.
 */
export function signInLink(portalUrl: string, audience: SendSignInLinksRequest['audience'], code: string): string {
  const base = portalUrl.replace(/\/+$/, '');
  return `${base}${audience === 'worker' ? '/worker/sign-in' : '/sign-in'}#code=${encodeURIComponent(code)}`;
}

/** One e-mail with a link per account the address may sign in as. */
export function signInLinksEmail(request: SendSignInLinksRequest, portalUrl: string): MailMessage {
  const single = request.links.length === 1;
  const place = request.audience === 'worker' ? 'the Availability Platform' : 'the Availability Platform portal';
  return {
    to: [request.to],
    subject: request.audience === 'worker' ? 'Your sign-in link for the Availability Platform' : 'Your sign-in link for the Availability Platform portal',
    text: [
      `Someone, hopefully you, asked to sign in to ${place} with this e-mail address.`,
      '',
      single ? 'Open this link to sign in:' : 'This address has several accounts; open the link of the one you want:',
      '',
      ...request.links.flatMap((link) => [`${link.label}:`, signInLink(portalUrl, request.audience, link.code), '']),
      `${single ? 'The link works' : 'Each link works'} once, within ${request.expiresInMinutes} minute${request.expiresInMinutes === 1 ? '' : 's'}.`,
      'If you did not ask to sign in, ignore this e-mail: nobody can sign in without the link.',
    ].join('\n'),
  };
}

/** One job per request's codes: the same request handed over twice (a retried NATS request) is sent once. */
export function signInJobId(request: SendSignInLinksRequest): string {
  return `sign-in.${createHash('sha256').update(request.links.map((link) => link.code).join('.')).digest('hex').slice(0, 32)}`;
}
