import { parseArgs } from 'node:util';
import type { OrganisationKind } from '@availability/platform-client';

export const ORGANISATION_KINDS: readonly OrganisationKind[] = ['hirer', 'agency', 'integrator'];
export const DEFAULT_DIRECTORY_URL = 'http://localhost:3001';
export const DEFAULT_OFFERS_URL = 'http://localhost:3000';
/** contact-directory's development default; any real deployment sets its own. */
export const DEFAULT_ADMIN_TOKEN = 'dev-admin-token';
const MAX_WORKERS = 1_000_000;
const MAX_USERS = 1_000;

export const USAGE = `Availability Platform CLI (talks to contact-directory's admin API)

Usage:
  npm run -s cli -- seed [options]          create an organisation with its API key, users (with portal
                                            tokens) and workers; prints them as JSON on stdout, and how to
                                            send an offer on stderr
  npm run -s cli -- revoke-key <apiKeyId>   revoke an API key (services caching it are told at once)
  npm run -s cli -- --help                  show this help

Options of seed:
  --name <name>           organisation name (default "Acme Staffing")
  --kind <kind>           hirer | agency | integrator (default agency)
  --workers <n>           workers to create, each with a worker token (default 5)
  --users <n>             portal users to create; the first is an admin (default 1)

Options of every command:
  --directory-url <url>   contact-directory address (env DIRECTORY_URL, default ${DEFAULT_DIRECTORY_URL})
  --admin-token <token>   admin token (env DIRECTORY_ADMIN_TOKEN, default: the development token)
  --offers-url <url>      offers-api address used in the hint (env OFFERS_API_URL, default ${DEFAULT_OFFERS_URL})

Exit status: 0 done, 1 the directory refused or could not be reached, 2 wrong usage.`;

/** Wrong usage: the message says what to fix; the caller prints it with a pointer to --help. */
export class UsageError extends Error {}

export interface Connection {
  directoryUrl: string;
  adminToken: string;
  offersUrl: string;
}

export interface SeedOptions {
  name: string;
  kind: OrganisationKind;
  workers: number;
  users: number;
}

export type Command =
  | { command: 'help' }
  | { command: 'seed'; connection: Connection; seed: SeedOptions }
  | { command: 'revoke-key'; connection: Connection; apiKeyId: string };

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  kind: { type: 'string' },
  workers: { type: 'string' },
  users: { type: 'string' },
  'directory-url': { type: 'string' },
  'admin-token': { type: 'string' },
  'offers-url': { type: 'string' },
} as const;

const SEED_ONLY = ['name', 'kind', 'workers', 'users'] as const;

/** Reads the command line (and the environment for defaults). Throws UsageError on anything wrong. */
export function parseCommand(argv: string[], env: Record<string, string | undefined> = {}): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') return { command: 'help' };

  const connection: Connection = {
    directoryUrl: url('--directory-url', values['directory-url'] ?? env.DIRECTORY_URL ?? DEFAULT_DIRECTORY_URL),
    adminToken: values['admin-token'] ?? env.DIRECTORY_ADMIN_TOKEN ?? DEFAULT_ADMIN_TOKEN,
    offersUrl: url('--offers-url', values['offers-url'] ?? env.OFFERS_API_URL ?? DEFAULT_OFFERS_URL),
  };
  if (connection.adminToken.length === 0) throw new UsageError('--admin-token must not be empty');

  switch (command) {
    case 'seed': {
      if (rest.length > 0) throw new UsageError(`seed takes no arguments, only options (got "${rest[0]}")`);
      const name = (values.name ?? 'Acme Staffing').trim();
      if (name.length === 0 || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
      const kind = (values.kind ?? 'agency') as OrganisationKind;
      if (!ORGANISATION_KINDS.includes(kind)) throw new UsageError(`--kind must be one of: ${ORGANISATION_KINDS.join(', ')}`);
      return {
        command,
        connection,
        seed: { name, kind, workers: count('--workers', values.workers, 5, MAX_WORKERS), users: count('--users', values.users, 1, MAX_USERS) },
      };
    }
    case 'revoke-key': {
      const used = SEED_ONLY.find((option) => values[option] !== undefined);
      if (used) throw new UsageError(`--${used} is an option of seed, not of revoke-key`);
      if (rest.length !== 1) throw new UsageError('revoke-key takes exactly one argument: the id of the API key');
      return { command, connection, apiKeyId: rest[0] };
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

function count(option: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) throw new UsageError(`${option} must be a whole number from 0 to ${max}`);
  return Number(raw);
}

function url(option: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new UsageError(`${option} must be an http(s) URL, like ${DEFAULT_DIRECTORY_URL}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`${option} must be an http(s) URL`);
  return raw.replace(/\/+$/, '');
}
