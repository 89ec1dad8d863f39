import { createECDH } from 'node:crypto';
import { ConfigValidationError } from '@availability/service-core';

/** The application server's identity towards push services (RFC 8292). */
export interface VapidKeys {
  /** base64url, 65-byte uncompressed P-256 point: what browsers subscribe with. */
  publicKey: string;
  /** base64url, 32 bytes. */
  privateKey: string;
  /** `mailto:` or `https:` */
  subject: string;
}

export interface VapidSettings {
  VAPID_PUBLIC_KEY: string;
  VAPID_PRIVATE_KEY: string;
  VAPID_SUBJECT: string;
}

/**
 * The VAPID keys of the settings, or undefined when none is set (Web Push off; production refuses
 * that at loadConfig). Some set but not all, or a public key that is not the private key's, is a
 * start-up error; messages name the variable, never the value.
 */
export function vapidKeys(settings: VapidSettings): VapidKeys | undefined {
  const { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, VAPID_SUBJECT: subject } = settings;
  if (!publicKey && !privateKey && !subject) return undefined;
  const problems: string[] = [];
  for (const [name, value] of [['VAPID_PUBLIC_KEY', publicKey], ['VAPID_PRIVATE_KEY', privateKey], ['VAPID_SUBJECT', subject]]) {
    if (!value) problems.push(`${name}: must be set with the other VAPID settings`);
  }
  if (problems.length === 0 && derivedPublicKey(privateKey) !== publicKey) {
    problems.push('VAPID_PUBLIC_KEY: is not the public key of VAPID_PRIVATE_KEY');
  }
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return { publicKey, privateKey, subject };
}

function derivedPublicKey(privateKey: string): string | undefined {
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(privateKey, 'base64url'));
    return ecdh.getPublicKey().toString('base64url');
  } catch {
    return undefined;
  }
}

/** A fresh key pair (what `web-push generate-vapid-keys` makes), for tests. */
export function generateVapidKeyPair(): { publicKey: string; privateKey: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  // 32 bytes always: the big number drops leading zero bytes.
  const privateKey = Buffer.from(ecdh.getPrivateKey().toString('hex').padStart(64, '0'), 'hex');
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: privateKey.toString('base64url') };
}
