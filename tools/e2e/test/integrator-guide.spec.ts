import { type ChildProcessByStdio, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually, freePort, startTestPlatform, type TestPlatform } from '@availability/testing';

/**
 * docs/integrator-guide.md, "From nothing to a verified webhook", followed as a newcomer would: the
 * receiver in each of the three languages is taken from the page as written, and the page's shell
 * steps run with bash against a running platform, the CLI's real output feeding them. Only the
 * addresses are changed, from the local platform's fixed ports to the test's.
 */
const GUIDE = resolve(process.cwd(), 'docs/integrator-guide.md');
const SECTION = '## From nothing to a verified webhook';
// The built CLI that `npm run -s cli` runs. Not its wrapper: on a fresh build the wrapper builds
// again, rewriting dist/ while the suites running beside this one start services from it.
const CLI = resolve(process.cwd(), 'dist/tools/cli/src/main.js');

interface Guide {
  receivers: Array<{ language: string; file: string; code: string }>;
  /** The section's bash blocks, in order. */
  shell: string[];
  /** The line that starts a receiver with its secret, e.g. `INTEGRATOR_SECRET=… PORT=4000 python3 receiver.py`. */
  secret: string;
}

async function readGuide(): Promise<Guide> {
  const text = await readFile(GUIDE, 'utf8');
  const start = text.indexOf(SECTION);
  if (start < 0) throw new Error(`${GUIDE} has no section "${SECTION}"`);
  const section = text.slice(start, text.indexOf('\n## ', start + SECTION.length));
  const blocks = [...section.matchAll(/```(\w+)(?: (\S+))?\n([\s\S]*?)```/g)].map(([, language, file, code]) => ({ language, file, code }));
  const secret = /INTEGRATOR_SECRET=(\S+) PORT=/.exec(section)?.[1];
  if (!secret) throw new Error('the section does not show how to start a receiver with INTEGRATOR_SECRET');
  return {
    receivers: blocks.filter((block) => block.file !== undefined),
    shell: blocks.filter((block) => block.language === 'bash').map((block) => block.code),
    secret,
  };
}

/** The command that runs each language's receiver, as the guide says. */
const RUN: Record<string, (file: string) => string[]> = {
  js: (file) => [process.execPath, file],
  python: (file) => ['python3', file],
  java: (file) => ['java', file],
};

/** A receiver from the guide, running as its own process; its stdout kept line by line. */
class Receiver {
  readonly lines: string[] = [];

  private constructor(private readonly child: ChildProcessByStdio<null, Readable, Readable>) {
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      this.lines.push(...parts);
    });
    child.stderr.resume();
  }

  static async start(directory: string, receiver: Guide['receivers'][number], secret: string, port: number): Promise<Receiver> {
    const path = join(directory, receiver.file);
    await writeFile(path, receiver.code);
    const [command, ...args] = RUN[receiver.language](path);
    const started = new Receiver(spawn(command, args, { cwd: directory, env: { ...process.env, INTEGRATOR_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] }));
    await started.printed(`listening on http://localhost:${port}`, 30_000);
    return started;
  }

  printed(prefix: string, timeoutMs = 20_000): Promise<string> {
    return eventually(() => this.lines.find((line) => line.startsWith(prefix)), timeoutMs, `a line "${prefix}…" from the receiver`);
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}

let platform: TestPlatform;
let guide: Guide;
let directory: string;

beforeAll(async () => {
  guide = await readGuide();
  directory = await mkdtemp(join(tmpdir(), 'integrator-guide-'));
  platform = await startTestPlatform(['contact-directory', 'offers-api', 'webhook-dispatcher'], { WEBHOOK_ALLOW_LOOPBACK: 'true' });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  if (directory) await rm(directory, { recursive: true, force: true });
});

/** Runs a shell step of the guide with bash; the local platform's addresses replaced by the test's. */
function bash(script: string, receiverPort: number, env: Record<string, string> = {}): { stdout: string; stderr: string } {
  const local = script
    .replaceAll('http://localhost:3001', platform.url('contact-directory'))
    .replaceAll('http://localhost:3000', platform.url('offers-api'))
    .replaceAll('http://localhost:4000', `http://localhost:${receiverPort}`)
    .replaceAll('npm run -s cli --', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}`);
  const run = spawnSync('bash', ['-euo', 'pipefail', '-c', local], {
    // The newcomer's own directory: org.json and the receivers live there.
    cwd: directory,
    env: {
      ...process.env,
      DIRECTORY_URL: platform.url('contact-directory'),
      DIRECTORY_ADMIN_TOKEN: platform.env.DIRECTORY_ADMIN_TOKEN,
      OFFERS_API_URL: platform.url('offers-api'),
      ...env,
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`a step of the guide failed (exit ${run.status}):\n${local}\n${run.stderr}`);
  return { stdout: run.stdout, stderr: run.stderr };
}

/** The step's bash block that contains `marker`. */
function step(marker: string): string {
  const found = guide.shell.find((block) => block.includes(marker));
  if (!found) throw new Error(`no shell step of the guide contains "${marker}"`);
  return found;
}

describe('the integrator guide, from nothing to a verified webhook', () => {
  it('shows a receiver in each of the three languages', () => {
    expect(guide.receivers.map((receiver) => receiver.language)).toEqual(['js', 'python', 'java']);
  });

  for (const language of ['js', 'python', 'java']) {
    it(`works as written with the ${language} receiver`, async () => {
      const receiverPort = await freePort();
      const receiver = await Receiver.start(directory, guide.receivers.find((candidate) => candidate.language === language) as Guide['receivers'][number], guide.secret, receiverPort);
      try {
        // Step 2: the CLI makes the organisation; the step reads the tokens from its output, and prints a curl for the offer.
        const seedStep = step('seed');
        const seeded = bash(`${seedStep}\necho "PORTAL_TOKEN=$PORTAL_TOKEN"; echo "WORKER_TOKEN=$WORKER_TOKEN"`, receiverPort);
        const portalToken = /^PORTAL_TOKEN=(put_\S+)$/m.exec(seeded.stdout)?.[1];
        const workerToken = /^WORKER_TOKEN=(wkt_\S+)$/m.exec(seeded.stdout)?.[1];
        expect({ portalToken, workerToken }).toEqual({ portalToken: expect.any(String), workerToken: expect.any(String) });
        const offerCurl = /^\s*curl -i -X POST [\s\S]*?-d '.*'$/m.exec(seeded.stderr)?.[0];
        if (!offerCurl) throw new Error(`the CLI printed no curl for the offer:\n${seeded.stderr}`);

        // Step 4: registering calls /test and a signed /test/auth, which the receiver verifies.
        const registered = bash(step('/portal/company-profile/webhook'), receiverPort, { PORTAL_TOKEN: portalToken as string });
        expect(JSON.parse(registered.stdout)).toMatchObject({ baseUrl: `http://localhost:${receiverPort}`, secretSet: true });
        await receiver.printed('verified GET /test/auth');

        // Step 5: the printed curl sends the offer; the worker answers it.
        const sent = bash(offerCurl, receiverPort);
        expect(sent.stdout).toMatch(/^HTTP\/1\.1 201/);
        const offerId = sent.stdout.trim().split('\n').at(-1)?.trim() as string;
        expect(offerId).toMatch(/^[0-9a-f-]{36}$/);
        const answerStep = step('/worker/offers/').replace(/^OFFER_ID=.*$/m, `OFFER_ID=${offerId}`);
        bash(answerStep, receiverPort, { WORKER_TOKEN: workerToken as string });

        // Step 6: the webhook arrives and verifies.
        const line = await receiver.printed('verified POST /offer/response ');
        expect(JSON.parse(line.slice('verified POST /offer/response '.length))).toMatchObject({ offerId, response: 'applied' });

        // An unsigned call is refused, as the guide says.
        const forged = /`(curl -i -X POST http:\/\/localhost:4000\/offer\/response[^`]*)`/.exec(await readFile(GUIDE, 'utf8'))?.[1];
        if (!forged) throw new Error('the guide shows no unsigned curl to the receiver');
        expect(bash(forged, receiverPort).stdout).toMatch(/^HTTP\/1\.[01] 401/);
      } finally {
        receiver.stop();
      }
    }, 90_000);
  }
});
