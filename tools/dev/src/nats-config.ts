import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeBusConfig } from './bus-config.js';

/**
 * `npm run nats:config -- [options]`: writes the bus credentials and the nats-server authorisation
 * config for a deployment (see bus-config.ts for the files, docs/operator-guide.md for their use).
 * Seeds are written to files only, never printed.
 */
const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: '.nats/platform' },
    listen: { type: 'string', default: '127.0.0.1:4223' },
    store: { type: 'string' },
    prefix: { type: 'string', default: process.env.NATS_SUBJECT_PREFIX ?? '' },
    stream: { type: 'string', default: process.env.EVENTS_STREAM ?? 'PLATFORM' },
    'monitor-port': { type: 'string' },
    rotate: { type: 'string', multiple: true },
    retire: { type: 'string', multiple: true },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(`usage: npm run nats:config -- [--dir .nats/platform] [--listen 127.0.0.1:4223] [--store <dir>]
       [--prefix <NATS_SUBJECT_PREFIX>] [--stream <EVENTS_STREAM>] [--monitor-port <port>]
       [--rotate <service>|sealing]... [--retire <service>]...
Writes <dir>/nats-server.conf (public keys and each service's permissions), <dir>/nats-helm-values.json
(the same authorisation for the NATS Helm chart), <dir>/services/<service>/bus.env (that service's
NATS_NKEY_SEED and sealing keys) and <dir>/credentials.json (every seed; keep it private).`);
  process.exit(0);
}

const dir = resolve(values.dir);
const written = await writeBusConfig({
  dir,
  listen: values.listen,
  storeDir: values.store ?? resolve(dir, 'jetstream'),
  subjectPrefix: values.prefix,
  stream: values.stream,
  monitorPort: values['monitor-port'] ? Number(values['monitor-port']) : undefined,
  rotate: values.rotate,
  retire: values.retire,
});
console.log(`wrote ${written.configFile}, ${written.helmValuesFile}, and each service's bus.env under ${resolve(dir, 'services')}`);
