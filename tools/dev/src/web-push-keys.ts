import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import webpush from 'web-push';

/** Who push services may contact about a development platform's pushes (RFC 8292's subject). */
export const DEV_VAPID_SUBJECT = 'mailto:dev@availability.example';

/** A new VAPID key pair as notification-service's settings (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT). */
export function newVapidSettings(subject = DEV_VAPID_SUBJECT): Record<string, string> {
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  return { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, VAPID_SUBJECT: subject };
}

export function toEnvFile(settings: Record<string, string>): string {
  return Object.entries(settings)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');
}

export function parseEnvFile(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) settings[match[1]] = match[2];
  }
  return settings;
}

/**
 * The VAPID settings kept in `file` (mode 0600), made on first use: browsers subscribed with the
 * public key stay valid across restarts, which a key made per run would break.
 */
export function vapidSettingsFile(file: string): { settings: Record<string, string>; created: boolean } {
  if (existsSync(file)) return { settings: parseEnvFile(readFileSync(file, 'utf8')), created: false };
  const settings = newVapidSettings();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, toEnvFile(settings), { mode: 0o600, flag: 'wx' });
  return { settings, created: true };
}
