import ipaddr from 'ipaddr.js';
import type { ProductionRule } from './production-rules.js';

/**
 * In production the platform's own servers (PostgreSQL, NATS, Redis) are reached over TLS, unless
 * they run on the same machine or the operator declares the network between them private
 * (ALLOW_PLAIN_INTERNAL_CONNECTIONS). In clear, Redis's AUTH carries its password as it is, anyone on
 * the path can make PostgreSQL's client send its password in clear, and events carry names and e-mail
 * addresses. Each rule reads the settings that decide TLS for its server, as the connection does.
 */
const OPT_OUT = 'or set ALLOW_PLAIN_INTERNAL_CONNECTIONS=true if the network to it is private';

/** `localhost`, a loopback address, or a Unix socket: the traffic never leaves the machine. */
export function isLocalHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === '' || bare.startsWith('/')) return true;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(bare)) return false;
  return ipaddr.process(bare).range() === 'loopback';
}

function plainAllowed(config?: Record<string, unknown>): boolean {
  const value = config?.ALLOW_PLAIN_INTERNAL_CONNECTIONS;
  return value === true || value === 'true';
}

/** A URL's host, or undefined when it is not one (the setting's own validator says so). */
function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    // libpq's `?host=/run/postgresql` names a socket directory in place of the URL's host.
    return parsed.searchParams.get('host') ?? parsed.hostname;
  } catch {
    return undefined;
  }
}

export const databaseOverTls: ProductionRule = (value, config) => {
  const url = String(value);
  const host = hostOf(url);
  if (plainAllowed(config) || host === undefined || isLocalHost(host)) return undefined;
  const sslmode = new URL(url).searchParams.get('sslmode');
  if (sslmode === 'verify-full' || (sslmode !== 'disable' && (config?.DATABASE_CA_FILE ?? '') !== '')) return undefined;
  return `reaches PostgreSQL on another machine without TLS: add sslmode=verify-full (or set DATABASE_CA_FILE), ${OPT_OUT}`;
};

/** NATS_URL's servers, one URL each. */
export function natsServers(natsUrl: string): string[] {
  return natsUrl
    .split(',')
    .map((server) => server.trim())
    .filter(Boolean);
}

/** Whether a service connects to NATS over TLS only: NATS_CA_FILE is set, or any server is named `tls://` (then all are). */
export function natsRequiresTls(config: { NATS_URL: string; NATS_CA_FILE: string }): boolean {
  return config.NATS_CA_FILE !== '' || natsServers(config.NATS_URL).some((server) => server.startsWith('tls://'));
}

export const natsOverTls: ProductionRule = (value, config) => {
  if (plainAllowed(config) || natsRequiresTls({ NATS_URL: String(value), NATS_CA_FILE: String(config?.NATS_CA_FILE ?? '') })) return undefined;
  const hosts = natsServers(String(value)).map((server) => hostOf(server.includes('://') ? server : `nats://${server}`));
  if (hosts.every((host) => host === undefined || isLocalHost(host))) return undefined;
  return `reaches NATS on another machine without TLS: name its servers tls:// (or set NATS_CA_FILE), ${OPT_OUT}`;
};

export const redisOverTls: ProductionRule = (value, config) => {
  const url = String(value);
  if (plainAllowed(config) || url.startsWith('rediss://')) return undefined;
  // Through Sentinels, REDIS_URL's host is not used: the Sentinels and the primary they name are.
  const sentinels = String(config?.REDIS_SENTINELS ?? '');
  const hosts = sentinels === '' ? [hostOf(url)] : sentinels.split(',').map((entry) => entry.slice(0, entry.lastIndexOf(':')));
  if (hosts.every((host) => host === undefined || isLocalHost(host))) return undefined;
  return `reaches Redis on another machine without TLS: use rediss:// (with REDIS_CA_FILE for a private CA), ${OPT_OUT}`;
};
