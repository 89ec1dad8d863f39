import { type DirectoryAdminClient, offerBody, type OrganisationKind } from '@availability/platform-client';
import type { SeedOptions } from './args.js';

/** The portal as `npm start` runs it, and its mail catcher's list of e-mail (tools/dev). */
export const DEFAULT_PORTAL_URL = 'http://localhost:3005';
const MAIL_CATCHER_LIST_URL = 'http://localhost:8025/api/v1/messages';

/** What `seed` prints on stdout. Tokens appear here once: the directory keeps only their hashes. */
export interface SeedResult {
  organisation: { id: string; name: string; kind: OrganisationKind };
  apiKey: { id: string; key: string };
  /** Each with a portal token (`put_…`) for the portal API: the company profile, webhooks, suggestions. */
  users: Array<{ id: string; email: string; name: string; role: string; portalToken: string }>;
  /** Each with an e-mail address: the worker app signs in only by a link e-mailed to it. */
  workers: Array<{ id: string; name: string; email: string; token: string }>;
}

/** `Acme Staffing` → `acme-staffing`, for made-up e-mail addresses. */
export function slug(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'organisation'
  );
}

/** The users and workers seed creates: numbered names; the first user administers the organisation. */
export function seedPeople(options: SeedOptions) {
  const domain = `${slug(options.name)}.example`;
  const users = Array.from({ length: options.users }, (_, i) => ({
    email: `user${i + 1}@${domain}`,
    name: `${options.name} user ${i + 1}`,
    role: i === 0 ? ('admin' as const) : ('member' as const),
  }));
  // Workers sign in by e-mailed link, so each has an address, under the same reserved domain.
  const workers = Array.from({ length: options.workers }, (_, i) => ({ name: `${options.name} worker ${i + 1}`, email: `worker${i + 1}@${domain}` }));
  return { users, workers };
}

export async function seed(admin: DirectoryAdminClient, options: SeedOptions): Promise<SeedResult> {
  const people = seedPeople(options);
  const organisation = await admin.createOrganisation(options.name, options.kind);
  const users = [];
  for (const user of people.users) {
    const created = await admin.createUser(organisation.id, user);
    const portal = await admin.issuePortalToken(created.id);
    users.push({ id: created.id, email: created.email, name: created.name, role: created.role, portalToken: portal.token });
  }
  const workers = people.workers.length > 0 ? await admin.createWorkers(organisation.id, people.workers) : [];
  return {
    organisation: { id: organisation.id, name: organisation.name, kind: organisation.kind },
    apiKey: organisation.apiKey,
    users,
    workers: workers.map((worker, i) => ({ id: worker.id, name: worker.name, email: worker.email ?? people.workers[i].email, token: worker.token })),
  };
}

/** A copy-and-paste `POST /offer` for the seeded organisation, and how to sign in as its people (stderr, for people). */
export function offerHint(result: SeedResult, offersUrl: string, portalUrl = DEFAULT_PORTAL_URL): string {
  const userId = result.users[0]?.id ?? '<id of a user of the organisation>';
  const workerIds = result.workers.length > 0 ? result.workers.slice(0, 3).map((w) => w.id) : ['<id of a worker of the organisation>'];
  const body = JSON.stringify(offerBody(userId, workerIds));
  const lines = [
    `Seeded "${result.organisation.name}" (${result.organisation.kind}): ${result.users.length} user(s), ${result.workers.length} worker(s).`,
    `Send an offer through offers-api with its API key:`,
    ``,
    `  curl -i -X POST ${offersUrl}/offer \\`,
    `    -H 'Authorization: Bearer ${result.apiKey.key}' \\`,
    `    -H 'Content-Type: application/json' \\`,
    `    -d '${body}'`,
    ``,
  ];
  const worker = result.workers[0];
  if (worker) {
    lines.push(
      `Sign in as a worker at ${portalUrl}/worker/sign-in with their address (${worker.email}): the sign-in link goes by e-mail, and \`npm start\`'s mail catcher prints it (and lists it at ${MAIL_CATCHER_LIST_URL}).`,
      `Their token works with the API too (GET ${offersUrl}/worker/offers, "Authorization: Bearer wkt_…").`,
    );
  }
  const admin = result.users[0];
  if (admin) lines.push(`${admin.email} uses the portal API (company profile, webhooks) with "Authorization: Bearer ${admin.portalToken}".`);
  if (result.users.length === 0) lines.push('Note: offers need a createdByUserId of the organisation; seed with --users 1 or more.');
  if (result.workers.length === 0) lines.push('Note: offers need workers of the organisation; seed with --workers 1 or more.');
  return lines.join('\n');
}
