import { parseArgs } from 'node:util';
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from '@availability/outbound-http';
import type { OrganisationKind } from '@availability/platform-client';
import { DEFAULT_SIGNATURE_SCHEMES, parseSignatureSchemes, type SignatureScheme } from '@availability/webhook-signing';

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
  npm run -s cli -- check-integrator <base-url> --secret <secret> [--scheme hmac|v1 ...]
                                            conformance kit: sends your service the platform's calls (and
                                            forged, stale and tampered ones) and prints PASS or FAIL a check
  npm run -s cli -- --help                  show this help

Options of seed:
  --name <name>           organisation name (default "Acme Staffing")
  --kind <kind>           hirer | agency | integrator (default agency)
  --workers <n>           workers to create, each with a worker token (default 5)
  --users <n>             portal users to create; the first is an admin (default 1)

Options of check-integrator:
  --secret <secret>       the webhook secret your service verifies with (as saved on the company profile)
  --scheme <scheme>       hmac or v1, once for each scheme your endpoint chose (default: hmac and v1, the
                          platform's default); every call is signed with all of them
  --timeout-ms <ms>       how long to wait for each answer (default ${DEFAULT_WEBHOOK_TIMEOUT_MS}, the platform's delivery timeout)

Options of seed and revoke-key:
  --directory-url <url>   contact-directory address (env DIRECTORY_URL, default ${DEFAULT_DIRECTORY_URL})
  --admin-token <token>   admin token (env DIRECTORY_ADMIN_TOKEN, default: the development token)
  --offers-url <url>      offers-api address used in the hint (env OFFERS_API_URL, default ${DEFAULT_OFFERS_URL})

Exit status: 0 done (check-integrator: every check passed), 1 the directory refused or could not be
reached (check-integrator: a check failed), 2 wrong usage.`;

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

export interface CheckIntegratorOptions {
  baseUrl: string;
  secret: string;
  schemes: SignatureScheme[];
  timeoutMs: number;
}

export type Command =
  | { command: 'help' }
  | { command: 'check-integrator'; check: CheckIntegratorOptions }
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
  secret: { type: 'string' },
  scheme: { type: 'string', multiple: true },
  'timeout-ms': { type: 'string' },
} as const;

const SEED_ONLY = ['name', 'kind', 'workers', 'users'] as const;
const CHECK_ONLY = ['secret', 'scheme', 'timeout-ms'] as const;
const DIRECTORY_ONLY = ['directory-url', 'admin-token', 'offers-url'] as const;
const MAX_TIMEOUT_MS = 120_000;

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
  if (command === 'check-integrator') return checkIntegrator(rest, values);
  const checkOption = CHECK_ONLY.find((option) => values[option] !== undefined);
  if (checkOption) throw new UsageError(`--${checkOption} is an option of check-integrator, not of ${command}`);

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

type Values = { [option in keyof typeof OPTIONS]?: (typeof OPTIONS)[option] extends { multiple: true } ? string[] : string | boolean };

function checkIntegrator(rest: string[], values: Values): Command {
  const other = [...SEED_ONLY, ...DIRECTORY_ONLY].find((option) => values[option] !== undefined);
  if (other) throw new UsageError(`--${other} is not an option of check-integrator`);
  if (rest.length !== 1) throw new UsageError('check-integrator takes exactly one argument: your service\'s base URL, like https://hooks.example.com/platform');
  const secret = values.secret;
  if (typeof secret !== 'string' || secret.length === 0) throw new UsageError('--secret is required: the webhook secret your service verifies with');
  const names = (values.scheme as string[] | undefined) ?? [...DEFAULT_SIGNATURE_SCHEMES];
  if (names.includes('v1a')) {
    throw new UsageError('--scheme v1a cannot be checked here: v1a is signed with the platform\'s private key, which only the platform holds; check hmac or v1, and v1a with a test event from the portal');
  }
  const schemes = parseSignatureSchemes(names);
  if (schemes === undefined) throw new UsageError('--scheme must be hmac or v1 (repeat it for both)');
  const timeout = values['timeout-ms'] as string | undefined;
  return {
    command: 'check-integrator',
    check: { baseUrl: url('the base URL', rest[0]), secret, schemes, timeoutMs: timeout === undefined ? DEFAULT_WEBHOOK_TIMEOUT_MS : positive('--timeout-ms', timeout, MAX_TIMEOUT_MS) },
  };
}

function positive(option: string, raw: string, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) throw new UsageError(`${option} must be a whole number from 1 to ${max}`);
  return Number(raw);
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
