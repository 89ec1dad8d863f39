import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import autocannon from 'autocannon';
import { issuePortalUserToken, PortalClient } from '@availability/platform-client';
import { type Classify, measureCpu, serviceAppOf, startTestPlatform, TEST_ADMIN_TOKEN, type TestPlatform } from '@availability/testing';
import { verifyRequest } from '@availability/webhook-signing';

/**
 * Contact-suggestion fan-out against real integrator stubs on loopback:
 *  1. one search across 20 integrators of which one never answers: must return within the
 *     per-call timeout + 100 ms;
 *  2. all 20 healthy (10 ms each): sustained searches per second (target ≥ 300 on 2 cores), measured
 *     after a few seconds of the same load so that the figures are of warm code and open connections.
 * The stubs and the load generator share this process; contact-directory runs as its own process —
 * by default as two worker processes (SERVICE_PROCESSES=2), one per core, as deployed on a 2-core machine.
 */
export interface SuggestionsBenchOptions {
  integrators: number;
  timeoutMs: number;
  stubDelayMs: number;
  hungSamples: number;
  connections: number;
  /** Load before the measured healthy phase (not counted), so connections are open and the code optimised. */
  warmupSeconds: number;
  durationSeconds: number;
  /** contact-directory's SERVICE_PROCESSES. */
  processes: number;
}

export const DEFAULT_OPTIONS: SuggestionsBenchOptions = {
  integrators: 20,
  timeoutMs: 2_000,
  stubDelayMs: 10,
  hungSamples: 5,
  connections: 32,
  warmupSeconds: 3,
  durationSeconds: 10,
  processes: Number(process.env.BENCH_SERVICE_PROCESSES ?? 2),
};

export interface BenchRow {
  scenario: string;
  metric: string;
  value: number | string;
  target: string;
  pass: boolean | null;
}

export interface Stubs {
  urls: string[];
  secrets: string[];
  /** Index of the integrator that never answers /contact-suggestions; -1: none. */
  hung: number;
  calls: number;
  unverified: number;
  /** TCP connections the stubs accepted: with keep-alive this stays near the pool size. */
  connections: number;
  close(): Promise<void>;
}

export async function startStubs(count: number, delayMs: number): Promise<Stubs> {
  const servers: Server[] = [];
  const stubs: Stubs = {
    urls: [],
    secrets: [],
    hung: -1,
    calls: 0,
    unverified: 0,
    connections: 0,
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
  for (let index = 0; index < count; index += 1) {
    const secret = `bench-secret-${randomUUID()}`;
    // Five contacts each; the first is shared by every integrator, so de-duplication has work to do.
    const reply = JSON.stringify([
      { name: 'Shared Person', emailAddress: 'shared@example.com', ratings: [{ rating: 4, ratingProvider: `Site ${index}`, lastWorked: '2024-05-01' }] },
      ...Array.from({ length: 4 }, (_, i) => ({
        name: `Contact ${index}-${i}`,
        emailAddress: `c${index}-${i}@example.com`,
        profileImageUrl: `https://img.example/${index}/${i}.png`,
        ratings: [{ rating: 1 + ((index + i) % 5), ratingProvider: `Site ${index}`, lastWorked: '2024-05-01T08:00:00Z' }],
      })),
    ]);
    // Sent with a content-length, as a framework answering with a JSON body would (not chunked).
    const replyHeaders = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(reply)) };
    const prefix = `/i${index}`;
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const url = req.url ?? '';
        const path = url.startsWith(prefix) ? url.slice(prefix.length) : url;
        if (path === '/test') return void res.writeHead(200).end();
        // Verified like a real integrator would: the hmac scheme over method, path and raw body, with the time window.
        const verified = verifyRequest({ request: req, body, secret }).ok;
        if (path === '/test/auth') return void res.writeHead(verified ? 200 : 401).end();
        stubs.calls += 1;
        if (!verified) {
          stubs.unverified += 1;
          return void res.writeHead(401).end();
        }
        if (stubs.hung === index) return; // never answers
        setTimeout(() => res.writeHead(200, replyHeaders).end(reply), delayMs);
      });
    });
    server.keepAliveTimeout = 60_000;
    server.on('connection', () => (stubs.connections += 1));
    server.listen(0, 'localhost');
    await once(server, 'listening');
    servers.push(server);
    stubs.urls.push(`http://localhost:${(server.address() as { port: number }).port}/i${index}`);
    stubs.secrets.push(secret);
  }
  return stubs;
}

export async function setUpIntegrators(platform: TestPlatform, stubs: Stubs): Promise<string[]> {
  const url = platform.url('contact-directory');
  const ids: string[] = [];
  for (let index = 0; index < stubs.urls.length; index += 1) {
    const organisation = await platform.admin.createOrganisation(`Integrator ${String(index).padStart(2, '0')}`, 'integrator');
    const user = await platform.admin.createUser(organisation.id, { email: `admin@i${index}.example`, name: 'Admin', role: 'admin' });
    const portal = new PortalClient(url, (await issuePortalUserToken(url, TEST_ADMIN_TOKEN, user.id)).token);
    await portal.saveWebhook(stubs.urls[index], stubs.secrets[index]);
    await portal.setSuggestionsEnabled(true);
    ids.push(organisation.id);
  }
  return ids;
}

export async function runSuggestionsBench(options: SuggestionsBenchOptions = DEFAULT_OPTIONS): Promise<BenchRow[]> {
  const stubs = await startStubs(options.integrators, options.stubDelayMs);
  const platform = await startTestPlatform(['contact-directory'], {
    LOG_LEVEL: 'warn',
    HTTP_REQUEST_LOGS: 'false',
    SUGGESTIONS_TIMEOUT_MS: String(options.timeoutMs),
    SERVICE_PROCESSES: String(options.processes),
  });
  const rows: BenchRow[] = [];
  try {
    const url = platform.url('contact-directory');
    const integratorIds = await setUpIntegrators(platform, stubs);
    const hirer = await platform.admin.createOrganisation('Bench Hirer', 'hirer');
    const hirerAdmin = await platform.admin.createUser(hirer.id, { email: 'admin@bench.example', name: 'Admin', role: 'admin' });
    const adminPortal = new PortalClient(url, (await issuePortalUserToken(url, TEST_ADMIN_TOKEN, hirerAdmin.id)).token);
    for (const id of integratorIds) await adminPortal.chooseSuggestionProvider(id, true);
    const user = await platform.admin.createUser(hirer.id, { email: 'hirer@bench.example', name: 'Hirer', role: 'member' });
    const token = (await issuePortalUserToken(url, TEST_ADMIN_TOKEN, user.id)).token;
    const portal = new PortalClient(url, token);

    // Warm-up: connections to every stub, verdict cache.
    for (let i = 0; i < 5; i += 1) await portal.searchSuggestions({ filter: 'warm' });

    // 1. One integrator never answers.
    stubs.hung = 0;
    const durations: number[] = [];
    let timeouts = 0;
    let suggestions = 0;
    for (let i = 0; i < options.hungSamples; i += 1) {
      const started = performance.now();
      const result = await portal.searchSuggestions({ filter: 'pick' });
      durations.push(performance.now() - started);
      timeouts += result.providers.filter((p) => p.status === 'timeout').length;
      suggestions = result.suggestions.length;
    }
    const worst = Math.round(Math.max(...durations));
    rows.push(
      { scenario: `${options.integrators} integrators, 1 hung`, metric: 'slowest search (ms)', value: worst, target: `≤ ${options.timeoutMs + 100}`, pass: worst <= options.timeoutMs + 100 },
      { scenario: `${options.integrators} integrators, 1 hung`, metric: 'mean search (ms)', value: Math.round(durations.reduce((a, b) => a + b, 0) / durations.length), target: '', pass: null },
      { scenario: `${options.integrators} integrators, 1 hung`, metric: 'timeouts reported per search', value: timeouts / options.hungSamples, target: '1', pass: timeouts === options.hungSamples },
      { scenario: `${options.integrators} integrators, 1 hung`, metric: 'suggestions per search (de-duplicated)', value: suggestions, target: `${1 + 4 * (options.integrators - 1)}`, pass: suggestions === 1 + 4 * (options.integrators - 1) },
    );

    // 2. All healthy, sustained load, after a warm-up under the same load.
    stubs.hung = -1;
    const load = (duration: number) =>
      autocannon({
        url: `${url}/portal/contact-suggestions/search`,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filter: 'pick' }),
        connections: options.connections,
        pipelining: 1,
        duration,
      });
    if (options.warmupSeconds > 0) await load(options.warmupSeconds);
    stubs.calls = 0;
    stubs.connections = 0;
    const stopCpu = measureCpu();
    const result = await load(options.durationSeconds);
    const cpu = await stopCpu(() => classifyProcess);
    const scenario = `${options.integrators} integrators healthy (${options.stubDelayMs} ms), ${options.processes} contact-directory processes, ${options.connections} connections, ${options.durationSeconds} s after ${options.warmupSeconds} s warm-up`;
    rows.push(
      { scenario, metric: 'searches/s (mean)', value: Math.round(result.requests.average), target: '≥ 300', pass: result.requests.average >= 300 },
      { scenario, metric: 'latency p50 / p99 (ms)', value: `${result.latency.p50} / ${result.latency.p99}`, target: '', pass: null },
      { scenario, metric: 'non-2xx + errors', value: result.non2xx + result.errors + result.timeouts, target: '0', pass: result.non2xx + result.errors + result.timeouts === 0 },
      { scenario, metric: 'integrator calls/s', value: Math.round(stubs.calls / result.duration), target: '', pass: null },
      { scenario, metric: 'new connections to the stubs', value: stubs.connections, target: '', pass: null },
      { scenario, metric: 'unverified signatures', value: stubs.unverified, target: '0', pass: stubs.unverified === 0 },
    );
    if (cpu && result.requests.total > 0) {
      const perSearch = (ms: number) => (ms / result.requests.total).toFixed(2);
      // Only the benchmark's own groups: other people's processes are noise, not cost per search.
      const { other: _, ...groups } = cpu.groups;
      for (const [group, ms] of Object.entries(groups).sort((a, b) => b[1] - a[1])) {
        rows.push({ scenario, metric: `CPU ms per search: ${group} (of which kernel)`, value: `${perSearch(ms)} (${perSearch(cpu.systemMs[group] ?? 0)})`, target: '', pass: null });
      }
      rows.push({
        scenario,
        metric: 'machine busy (cores, of which ours) / stolen by the host',
        value: `${(cpu.machineBusyMs / cpu.wallMs).toFixed(2)} (${(Object.values(groups).reduce((a, b) => a + b, 0) / cpu.wallMs).toFixed(2)}) / ${(cpu.stolenMs / cpu.wallMs).toFixed(2)}`,
        target: '',
        pass: null,
      });
    }
  } finally {
    await platform.stop();
    await stubs.close();
  }
  return rows;
}

export function formatTable(rows: BenchRow[]): string {
  const header = ['scenario', 'metric', 'value', 'target', 'pass'];
  const cells = rows.map((row) => [row.scenario, row.metric, String(row.value), row.target, row.pass === null ? '' : row.pass ? 'yes' : 'NO']);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column].length)));
  const line = (values: string[]) => `| ${values.map((value, column) => value.padEnd(widths[column])).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

/**
 * contact-directory, this process (integrator stubs + load) and the servers it needs. Postgres
 * serves everyone on this machine; billed whole, so it over-counts when others are busy. NATS is the
 * benchmark's own server (the harness starts one per run).
 */
const classifyProcess: Classify = (info) => {
  const { pid, ppid, comm } = info;
  if (pid === process.pid) return 'bench (stubs + load)';
  const app = serviceAppOf(info);
  if (app) return app;
  if (comm.startsWith('postgres')) return 'postgres (all)';
  if (comm === 'nats-server') return ppid === process.pid ? 'nats' : 'other';
  return 'other';
};
