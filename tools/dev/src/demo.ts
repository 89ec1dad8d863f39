import { parseArgs } from 'node:util';
import { Journey, request } from '@availability/platform-client';
import { MAIL_CATCHER_HTTP_PORT, PLATFORM_SERVICES } from './platform.js';

/**
 * `npm run demo`: walks the platform's whole journey against the running platform (`npm start`, or
 * `docker compose up` with `--integrator-base-url=http://example-integrator:3004`) and prints each
 * step and what it saw. Each run creates its own organisation, so it can be repeated.
 */
const local = (app: string) => `http://localhost:${PLATFORM_SERVICES.find((service) => service.app === app)?.port}`;

const { values: options } = parseArgs({
  options: {
    'admin-token': { type: 'string', default: process.env.DIRECTORY_ADMIN_TOKEN ?? 'dev-admin-token' },
    'integrator-secret': { type: 'string', default: process.env.INTEGRATOR_SECRET ?? 'dev-integrator-secret' },
    'integrator-base-url': { type: 'string', default: local('example-integrator') },
    'mail-api': { type: 'string', default: `http://localhost:${MAIL_CATCHER_HTTP_PORT}` },
    help: { type: 'boolean', default: false },
  },
});

if (options.help) {
  console.log(`npm run demo [-- --admin-token=… --integrator-secret=… --integrator-base-url=… --mail-api=…]

Walks the whole journey against the platform on this machine's default ports and prints each step.
Defaults: the development admin token and integrator secret (or DIRECTORY_ADMIN_TOKEN and
INTEGRATOR_SECRET), the example integrator on ${local('example-integrator')}, the mail catcher's list on
port ${MAIL_CATCHER_HTTP_PORT}.`);
  process.exit(0);
}

interface MailList {
  messages: Array<{ To: Array<{ Address: string }> }>;
}

async function mailCount(address: string): Promise<number> {
  const list = await request<MailList>(options['mail-api'], 'GET', '/api/v1/messages?limit=1000');
  return list.json.messages.filter((message) => message.To.some((to) => to.Address === address)).length;
}

const journey = new Journey({
  urls: {
    contactDirectory: local('contact-directory'),
    offersApi: local('offers-api'),
    notificationService: local('notification-service'),
    exampleIntegrator: local('example-integrator'),
  },
  integratorBaseUrl: options['integrator-base-url'],
  integratorSecret: options['integrator-secret'],
  adminToken: options['admin-token'],
  mailCount,
  // The notify-address e-mail is digested: at most one a minute per offer by default.
  waitMs: 90_000,
});

const unreachable = [];
for (const service of PLATFORM_SERVICES) {
  if (!(await fetch(`${local(service.app)}/health/live`).then((r) => r.ok).catch(() => false))) unreachable.push(service.app);
}
if (unreachable.length > 0) {
  console.error(`Not running: ${unreachable.join(', ')}. Start the platform first with \`npm start\`.`);
  process.exit(1);
}

console.log('The Availability Platform, end to end:\n');
try {
  await journey.run((index, step, seen, ms) => {
    console.log(`${String(index + 1).padStart(2)}. ${step.title}  (${ms} ms)`);
    console.log(`    ✔ ${seen}`);
  });
  console.log('\nEvery step checked out.');
} catch (error) {
  console.error(`\n    ✘ ${(error as Error).message}`);
  process.exit(1);
}
