import { createCurve, fromCurveSeed, type KeyPair } from '@nats-io/nkeys';

const text = new TextEncoder();

export interface SealingKeys {
  /** Private: `SX…`, configured only on the service that owns it. */
  seed: string;
  /** Public: `X…`, given to the peer. */
  publicKey: string;
}

/** A fresh X25519 key pair in nkeys' xkey encoding (what `npm run nats:config` and the test harness hand out). */
export function createSealingKeys(): SealingKeys {
  const pair = createCurve();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

export function isSealingSeed(value: string): boolean {
  return keyPairOf(value) !== undefined;
}

export function isSealingPublicKey(value: string): boolean {
  const probe = createCurve();
  try {
    probe.seal(new Uint8Array(1), value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Authenticated public-key encryption between two services: NaCl box (X25519, XSalsa20-Poly1305) as
 * nkeys' xkeys do it. Only the recipient's private key opens a sealed value, and opening checks it
 * was sealed by the expected sender's key, so a value forged or altered anywhere on the way is refused.
 */
export class SealedBox {
  private readonly keys: KeyPair;

  constructor(seed: string) {
    const keys = keyPairOf(seed);
    if (!keys) throw new Error('not an xkey seed');
    this.keys = keys;
  }

  get publicKey(): string {
    return this.keys.getPublicKey();
  }

  /** Base64 of the sealed UTF-8 text, for `recipient`'s eyes only. */
  seal(plaintext: string, recipient: string): string {
    return Buffer.from(this.keys.seal(text.encode(plaintext), recipient)).toString('base64');
  }

  /** The text `sender` sealed for us, or undefined when it is not that (wrong keys, altered, not base64). */
  open(sealed: string, sender: string): string | undefined {
    try {
      const opened = this.keys.open(Buffer.from(sealed, 'base64'), sender);
      return opened ? Buffer.from(opened).toString('utf8') : undefined;
    } catch {
      return undefined;
    }
  }
}

function keyPairOf(seed: string): KeyPair | undefined {
  try {
    const pair = fromCurveSeed(text.encode(seed));
    pair.getPublicKey();
    return pair;
  } catch {
    return undefined;
  }
}

/**
 * Start-up check of a service's sealing settings: its own seed and its peer's public key, both
 * valid when set (production requires them: see the config classes). Messages name the variable, never the value.
 */
export function sealingKeysProblems(settings: { seed: [string, string]; peer: [string, string] }): string[] {
  const problems: string[] = [];
  const [seedName, seed] = settings.seed;
  const [peerName, peer] = settings.peer;
  if (seed && !isSealingSeed(seed)) problems.push(`${seedName}: must be an xkey seed (SX…)`);
  if (peer && !isSealingPublicKey(peer)) problems.push(`${peerName}: must be a public xkey (X…)`);
  return problems;
}
