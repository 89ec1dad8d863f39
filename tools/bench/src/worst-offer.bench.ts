import { setTimeout as sleep } from 'node:timers/promises';
import { OfferLimits } from '@availability/contracts';
import { MAX_JSON_ITEMS, MAX_OBJECT_PROPERTIES } from '@availability/service-core';
import { offerBody, seedOrganisation } from '@availability/platform-client';
import { measureCpu, queryDatabase, startTestPlatform } from '@availability/testing';
import type { Defer } from './offers.bench.js';
import { type BenchReport, type CheckFigures, machineInfo } from './report.js';

export interface WorstOfferBenchSettings {
  /** Measured requests per body shape (after two unmeasured ones). */
  repeats: number;
}

export const WORST_OFFER_TARGETS = { requestMs: 100, probeMs: 50 };

/** One body that fits the body limit, built to cost offers-api as much as its shape can. */
interface Shape {
  name: string;
  /** Status offers-api must answer: anything else means the shape measured something else. */
  status: number;
  body: string;
}

interface ShapeFigures {
  shape: string;
  bytes: number;
  status: number;
  p50: number;
  max: number;
  /** Slowest `GET /health/live` sent while one of the shape's requests was being processed. */
  probeMax: number;
  probes: number;
  /** offers-api's CPU time (user + system) per request, probes included: what the shape costs, however busy the machine. */
  serverCpuMs?: number;
  /** Cores the rest of the machine used meanwhile: the figures are wall-clock times on shared cores. */
  othersCores?: number;
}

/**
 * The slowest request that fits offers-api's body limit, and whether the process stays responsive
 * while it runs. Each body shape is sent `repeats` times, one at a time; while each is in flight a
 * liveness probe is sent on its own connection every 2 ms, and the slowest probe is the figure.
 * Targets: every shape answered in < 100 ms, every probe in < 50 ms.
 */
export async function runWorstOfferBench(settings: WorstOfferBenchSettings, signal: AbortSignal, defer: Defer): Promise<BenchReport> {
  const startedAt = new Date().toISOString();
  const log = (message: string) => console.log(`[bench] ${message}`);

  log('starting contact-directory and offers-api on a fresh database and NATS namespace');
  const platform = await startTestPlatform(['contact-directory', 'offers-api'], { LOG_LEVEL: 'warn', HTTP_REQUEST_LOGS: 'false' });
  defer(() => platform.stop());
  log(`seeding an organisation with ${OfferLimits.workers} workers (the most one offer may name)`);
  const org = await seedOrganisation(platform.admin, { name: 'Bench', workers: OfferLimits.workers });
  const offersUrl = platform.url('offers-api');

  const shapes = buildShapes(org.user.id, org.workers.map((w) => w.id));
  const figures: ShapeFigures[] = [];
  for (const shape of shapes) {
    signal.throwIfAborted();
    figures.push(await measureShape(offersUrl, org.apiKey, shape, settings.repeats, signal, platform.services['offers-api'].pid));
    const f = figures[figures.length - 1];
    log(`${shape.name}: ${kib(f.bytes)} KiB → ${f.status}, p50 ${f.p50} ms, max ${f.max} ms; slowest of ${f.probes} probes ${f.probeMax} ms; ${cpuText(f)}`);
  }

  const worst = figures.reduce((a, b) => (b.max > a.max ? b : a));
  const worstProbe = figures.reduce((a, b) => (b.probeMax > a.probeMax ? b : a));
  const checks: CheckFigures[] = figures.map((f) => ({
    name: f.shape,
    detail: `${kib(f.bytes)} KiB → ${f.status}; p50 ${f.p50} ms, max ${f.max} ms; probe max ${f.probeMax} ms (${f.probes}); ${cpuText(f)}`,
    pass: f.max < WORST_OFFER_TARGETS.requestMs && f.probeMax < WORST_OFFER_TARGETS.probeMs,
  }));
  checks.push(
    {
      name: `Slowest request < ${WORST_OFFER_TARGETS.requestMs} ms`,
      detail: `${worst.shape}: max ${worst.max} ms`,
      pass: worst.max < WORST_OFFER_TARGETS.requestMs,
    },
    {
      name: `Liveness probe meanwhile < ${WORST_OFFER_TARGETS.probeMs} ms`,
      detail: `during ${worstProbe.shape}: ${worstProbe.probeMax} ms`,
      pass: worstProbe.probeMax < WORST_OFFER_TARGETS.probeMs,
    },
  );

  const [{ server_version: postgres }] = await queryDatabase<{ server_version: string }>(platform.database.url, 'SHOW server_version');
  const nc = await platform.events.connect();
  const nats = nc.info?.version ?? 'unknown';
  await nc.close();
  return {
    benchmark: 'worst-offer',
    startedAt,
    command: ['npm run bench -- worst-offer', ...process.argv.slice(2).filter((arg) => arg !== 'worst-offer')].join(' '),
    machine: machineInfo(postgres, nats),
    settings: { repeats: settings.repeats, bodyLimitBytes: OfferLimits.bodyBytes },
    scenarios: [],
    ratios: [],
    checks,
  };
}

function cpuText(f: ShapeFigures): string {
  if (f.serverCpuMs === undefined) return 'CPU not measured';
  return `offers-api CPU ${f.serverCpuMs.toFixed(1)} ms/request, others ${((f.othersCores ?? 0) * 100).toFixed(0)}% of a core`;
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(0);
}

/** `n` copies of a string, as a JSON array's text (faster than JSON.stringify of a huge array). */
function repeatJson(item: string, n: number): string {
  return `[${Array.from({ length: n }, () => item).join(',')}]`;
}

/** Bodies as large and as costly as the limit allows, valid and not. */
function buildShapes(userId: string, workerIds: string[]): Shape[] {
  const base = offerBody(userId, workerIds.slice(0, 1));
  const limit = OfferLimits.bodyBytes;
  const fill = (json: string) => json.slice(0, -1); // without the closing brace, to append a property
  const room = (json: string, extra: number) => limit - Buffer.byteLength(json) - extra;
  const day = 24 * 60 * 60 * 1000;
  const maxEvents = Array.from({ length: OfferLimits.events }, (_, i) => ({
    start: new Date(Date.UTC(2031, 0, 1) + i * day).toISOString(),
    end: new Date(Date.UTC(2031, 0, 1) + i * day + 8 * 3600_000).toISOString(),
  }));
  // U+1F600 is two UTF-16 code units and four UTF-8 bytes: the longest text per character allowed.
  const emoji = (n: number) => '\u{1F600}'.repeat(n);
  const longestId = (i: number) => `w${String(i).padStart(OfferLimits.idLength - 1, '0')}`;

  const shapes: Shape[] = [
    { name: 'valid: 10,000 workers, 100 events', status: 201, body: JSON.stringify({ ...base, workerIds, events: maxEvents }) },
    {
      name: 'valid: every string at its longest (4-byte characters), 100 events',
      status: 201,
      body: JSON.stringify({
        ...base,
        title: emoji(OfferLimits.titleLength),
        details: emoji(OfferLimits.detailsLength),
        locationPlaceId: emoji(OfferLimits.locationPlaceIdLength),
        events: maxEvents,
      }),
    },
    {
      name: 'unknown: 10,000 workers with 64-character ids',
      status: 400,
      body: JSON.stringify({ ...base, workerIds: Array.from({ length: OfferLimits.workers }, (_, i) => longestId(i)), events: maxEvents }),
    },
    { name: 'repeats: 10,000 copies of one 64-character id', status: 400, body: JSON.stringify({ ...base, workerIds: Array(OfferLimits.workers).fill(longestId(0)) }) },
  ];

  // Past a bound: each must be refused by one length check, whatever the rest costs.
  const json = JSON.stringify(base);
  const ids = MAX_JSON_ITEMS - 100;
  const idLength = Math.min(36, Math.floor(room(json, 20) / ids) - 3);
  shapes.push({
    name: `too many: ${ids.toLocaleString('en')} worker ids of ${idLength} characters`,
    status: 400,
    body: JSON.stringify({ ...base, workerIds: Array.from({ length: ids }, (_, i) => longestId(i).slice(-idLength)) }),
  });
  const mib = `${limit / (1024 * 1024)} MiB`;
  shapes.push({ name: `too long: a title of ${mib} (surrogate pairs)`, status: 400, body: JSON.stringify({ ...base, title: emoji(Math.floor(room(json, 20) / 4)) }) });
  shapes.push({ name: `too long: details of ${mib} (spaces)`, status: 400, body: JSON.stringify({ ...base, details: ' '.repeat(room(json, 20)) }) });

  // Ignored by the DTO, but parsed and checked (depth, strings, property names) like everything else:
  // as many items as a body may hold, as long as the limit allows.
  const items = MAX_JSON_ITEMS - 100;
  const stringLength = Math.floor(room(json, 20) / items) - 3;
  shapes.push({
    name: `ignored: ${items.toLocaleString('en')} strings of ${stringLength} characters`,
    status: 201,
    body: `${fill(json)},"x":${repeatJson(JSON.stringify('s'.repeat(stringLength)), items)}}`,
  });
  const perObject = MAX_OBJECT_PROPERTIES - 1;
  const objects = Math.floor(items / (perObject + 1));
  const nameLength = Math.floor(room(json, 20) / (objects * perObject)) - 6;
  const object = (o: number) => `{${Array.from({ length: perObject }, (_, i) => `"${String(o * perObject + i).padStart(nameLength, 'k')}":0`).join(',')}}`;
  shapes.push({
    name: `ignored: ${objects} objects of ${perObject} properties, all ${nameLength}-character names distinct`,
    status: 201,
    body: `${fill(json)},"x":[${Array.from({ length: objects }, (_, o) => object(o)).join(',')}]}`,
  });
  // The root object and "x" are two levels: 14 more make the deepest body allowed.
  const deepest = `${'['.repeat(14)}"${'d'.repeat(100)}"${']'.repeat(14)}`;
  shapes.push({
    name: 'ignored: the deepest nesting allowed (16 levels), repeated',
    status: 201,
    body: `${fill(json)},"x":${repeatJson(deepest, Math.min(Math.floor(items / 15), Math.floor(room(json, 20) / (deepest.length + 1))))}}`,
  });
  shapes.push({ name: `too many: ${(items * 10).toLocaleString('en')} numbers`, status: 400, body: `${fill(json)},"x":${repeatJson('0', items * 10)}}` });
  const nested = Math.floor(room(json, 20) / 2);
  shapes.push({ name: `too deep: ${nested.toLocaleString('en')} nested arrays`, status: 400, body: `${fill(json)},"x":${'['.repeat(nested)}${']'.repeat(nested)}}` });

  for (const shape of shapes) {
    const bytes = Buffer.byteLength(shape.body);
    if (bytes > limit) throw new Error(`${shape.name}: ${bytes} bytes is over the ${limit}-byte limit; the shape would only measure the 413`);
  }
  return shapes;
}

async function measureShape(
  baseUrl: string,
  apiKey: string,
  shape: Shape,
  repeats: number,
  signal: AbortSignal,
  serverPid: number | undefined,
): Promise<ShapeFigures> {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  // Encoded once: a string body would be encoded anew for every send, and the garbage of a large body
  // each request would start collections in this process that delay the probes it times.
  const body = Buffer.from(shape.body);
  const send = async () => {
    const started = performance.now();
    // No signal: each fetch would add an abort listener to it; the loop checks it between requests.
    const response = await fetch(`${baseUrl}/offer`, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return { ms: performance.now() - started, status: response.status };
  };
  // Two unmeasured: the first of a shape pays for JIT and caches.
  for (let i = 0; i < 2; i++) await send();

  const times: number[] = [];
  let probeMax = 0;
  let probes = 0;
  const stopCpu = measureCpu();
  for (let i = 0; i < repeats; i++) {
    signal.throwIfAborted();
    let inFlight = true;
    const probing = (async () => {
      while (inFlight && !signal.aborted) {
        const started = performance.now();
        await (await fetch(`${baseUrl}/health/live`)).arrayBuffer();
        probeMax = Math.max(probeMax, performance.now() - started);
        probes++;
        await sleep(2);
      }
    })();
    const { ms, status } = await send();
    inFlight = false;
    await probing;
    if (status !== shape.status) throw new Error(`${shape.name}: answered ${status}, expected ${shape.status}`);
    times.push(ms);
    await sleep(20);
  }
  const ownPid = process.pid;
  const cpu = await stopCpu(() => ({ pid }) => (pid === serverPid ? 'offers-api' : pid === ownPid ? 'bench' : 'others'));
  times.sort((a, b) => a - b);
  return {
    serverCpuMs: cpu ? (cpu.groups['offers-api'] ?? 0) / repeats : undefined,
    othersCores: cpu ? (cpu.groups.others ?? 0) / cpu.wallMs : undefined,
    shape: shape.name,
    bytes: Buffer.byteLength(shape.body),
    status: shape.status,
    p50: Math.round(times[Math.floor(times.length / 2)]),
    max: Math.round(times[times.length - 1]),
    probeMax: Math.round(probeMax),
    probes,
  };
}
