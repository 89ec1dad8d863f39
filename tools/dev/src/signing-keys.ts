import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { generateSigningKeyEntry, SigningKeyRing } from '@availability/webhook-signing';

/**
 * Makes ed25519 keys for WEBHOOK_SIGNING_KEYS (docs/operator-guide.md "Signing keys"):
 *   npm run signing-key -- --kid 2026-11      prints one new entry (JSON) to put first in the list
 *   … --init-file <path> [--kid <kid>]        writes a one-key list to <path> unless the file exists
 *                                             (docker compose's first start; mode 0600)
 * Nothing is printed but the key asked for; keep it out of logs and shells' history files.
 */
const { values } = parseArgs({ options: { kid: { type: 'string' }, 'init-file': { type: 'string' } } });
const kid = values.kid ?? new Date().toISOString().slice(0, 10);
const file = values['init-file'];

if (file === undefined) {
  process.stdout.write(`${JSON.stringify(generateSigningKeyEntry(kid))}\n`);
} else if (existsSync(file)) {
  process.stderr.write(`${file} exists: its keys are kept\n`);
} else {
  const json = JSON.stringify([generateSigningKeyEntry(kid)]);
  SigningKeyRing.parse(json);
  writeFileSync(file, json, { mode: 0o600, flag: 'wx' });
  process.stderr.write(`${file}: a new signing key "${kid}" was written\n`);
}
