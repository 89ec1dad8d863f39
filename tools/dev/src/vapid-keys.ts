import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { newVapidSettings, toEnvFile, vapidSettingsFile } from './web-push-keys.js';

/**
 * Makes notification-service's Web Push (VAPID) key pair (docs/operator-guide.md "Web Push"):
 *   node dist/tools/dev/src/vapid-keys.js [--subject mailto:…]   prints VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT lines
 *   … --init-file <path>                                         writes them to <path> unless it exists
 *                                                                (docker compose's first start; mode 0600)
 * Nothing is printed but the keys asked for; keep them out of logs and shells' history files.
 */
const { values } = parseArgs({ options: { subject: { type: 'string' }, 'init-file': { type: 'string' } } });
const file = values['init-file'];

if (file === undefined) {
  process.stdout.write(toEnvFile(newVapidSettings(values.subject)));
} else if (existsSync(file)) {
  process.stderr.write(`${file} exists: its keys are kept\n`);
} else {
  vapidSettingsFile(file);
  process.stderr.write(`${file}: a new VAPID key pair was written\n`);
}
