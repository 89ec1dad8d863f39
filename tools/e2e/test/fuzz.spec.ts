import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentedProblemTypes } from '../src/fuzz/checks.js';
import { isResponse } from '../src/fuzz/driver.js';
import { committedDocument, documentedOperations, type DocumentedOperation } from '../src/fuzz/openapi.js';
import { OPERATIONS } from '../src/fuzz/operations.js';
import type { FuzzRequest } from '../src/fuzz/requests.js';
import { type FuzzContext, fuzzOperation, type KnownDefect } from '../src/fuzz/runner.js';
import { StateProbe } from '../src/fuzz/state.js';
import { FUZZED_APPS, type FuzzWorld, startFuzzWorld } from '../src/fuzz/world.js';

/**
 * Hostile input against every operation of every HTTP service (docs/testing.md): generated requests,
 * most past authentication, must never get a 5xx; every 4xx must be a problem+json as docs/errors.md
 * describes; and a refused request must change nothing (tables, event stream, example integrator).
 *
 * FUZZ_SEED replays a run, FUZZ_RUNS sets the requests per operation, FUZZ_ONLY picks operations
 * (`POST /offer`, or any part of `METHOD path`). The whole suite is bounded by FUZZ_TIME_MS.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 36_000);
const ONLY = process.env.FUZZ_ONLY;

/**
 * KNOWN DEFECTS, fixed in a parallel branch. A failure matching one is counted and printed, not failed.
 * Whoever merges that branch deletes this list (and `FUZZ_KNOWN_DEFECTS=fail` shows what it still excuses).
 */
const has = (request: FuzzRequest, pattern: RegExp) => pattern.test(`${request.path}\n${request.body?.toString('latin1') ?? ''}`);
const KNOWN_DEFECTS: KnownDefect[] = [
  {
    name: 'NUL or lone surrogate → 500',
    matches: (request, _, violation) => violation === 'HTTP 500' && has(request, /\\u0000|%00|\\ud[89a-f][0-9a-f]{2}|%ED%[AB]/i),
  },
  {
    name: 'JSON nested thousands deep → 500 (class-transformer RangeError)',
    matches: (request, _, violation) => violation === 'HTTP 500' && has(request, /\[{1000}|(\{"a":){1000}/),
  },
  {
    // 414 and 431 come from Node and Fastify before routing; 400 "Client Error" is Node's parser refusing the
    // framing (a Content-Length that lies, or two); FST_ERR_BAD_URL is a malformed %-escape in the path.
    name: 'Fastify’s own errors (414, 431, bad Content-Length, bad URL) not problem+json',
    matches: (_, outcome, violation) =>
      isResponse(outcome) &&
      !violation.startsWith('HTTP 5') &&
      !violation.includes('yet changed') &&
      (outcome.status === 414 ||
        outcome.status === 431 ||
        (outcome.status === 400 && (outcome.text.includes('"message":"Client Error"') || outcome.text.includes('"code":"FST_ERR_BAD_URL"')))),
  },
  {
    name: '?API-VERSION=2.0 and ?api-version[]= ignored',
    matches: (request, _, violation) =>
      /api-version .* is not supported$/.test(violation) &&
      (request.path.split('?')[1] ?? '')
        .split('&')
        .map((pair) => pair.split('=')[0])
        .some((name) => name !== 'api-version' && name.toLowerCase().replace(/\[\]$/, '') === 'api-version'),
  },
  {
    name: 'EPIPE / reset instead of 413 for a body over the limit',
    matches: (request, outcome) => !isResponse(outcome) && /EPIPE|ECONNRESET/.test(outcome.error) && (request.body?.length ?? 0) > 1_000_000,
  },
  {
    // Found by this suite, not fixed here: the cause is in the shared DTO validation (@NestedDto), which the
    // parallel branch is changing. An element that is itself an array passes validation and the service
    // then reads fields of undefined. Reported with the branch's other findings; delete with the fix.
    name: 'NEW: an array element of invitations/workers that is an array → 500',
    matches: (request, _, violation) =>
      violation === 'HTTP 500' &&
      /^POST \/(portal\/invitations|admin\/organisations\/\{organisationId\}\/workers\/bulk)$/.test(request.operation) &&
      has(request, /"(invitations|workers)":\[(.*,)?\[/i),
  },
  {
    // Found by this suite, not fixed here: class-transformer (in the shared body validation) takes a plain
    // object's own `constructor` member for its class and throws, e.g. {"title":{"constructor":"x"}}.
    name: 'NEW: a "constructor" member inside a body field → 500',
    matches: (request, _, violation) => violation === 'HTTP 500' && has(request, /"constructor":/),
  },
  {
    name: 'GET /admin/deliveries?before=<beyond 2^53> → 500',
    matches: (request, _, violation) => violation === 'HTTP 500' && request.operation === 'GET /admin/deliveries' && /before=/.test(request.path),
  },
];

const documents = new Map(FUZZED_APPS.map((app) => [app, documentedOperations(app, committedDocument(app))]));
const selected = (operation: DocumentedOperation) => !ONLY || operation.key === ONLY || operation.key.includes(ONLY);
/** Operations with a body have more to explore: they get three shares of the time, the others one. */
const share = (operation: DocumentedOperation) => (OPERATIONS[operation.app]?.[operation.key]?.body ? 3 : 1);
const totalShares = [...documents.values()].flat().filter(selected).reduce((sum, operation) => sum + share(operation), 0);

let world: FuzzWorld;
let context: FuzzContext;

beforeAll(async () => {
  console.log(`hostile-input: seed ${SEED}, ${RUNS} runs per operation, ${TIME_MS} ms in all; replay with FUZZ_SEED=${SEED}`);
  world = await startFuzzWorld();
  const probe = await StateProbe.open(world);
  context = {
    world,
    probe,
    problemTypes: documentedProblemTypes(),
    knownDefects: process.env.FUZZ_KNOWN_DEFECTS === 'fail' ? [] : KNOWN_DEFECTS,
    excused: new Map(),
    sent: new Map(),
  };
}, 120_000);

afterAll(async () => {
  if (context?.excused.size) {
    const lines = [...context.excused].map(
      ([name, { count, operations, example }]) => `  ${name}: ${count} request(s) to ${[...operations].join(', ')}; e.g. ${example}`,
    );
    console.log(`hostile-input: known defects excused (seed ${SEED}):\n${lines.join('\n')}`);
  }
  await context?.probe.close();
  await world?.stop();
});

describe('the operation table', () => {
  it('describes every operation each service serves in /openapi.json, and nothing else', async () => {
    const problems: string[] = [];
    for (const app of FUZZED_APPS) {
      const served = documentedOperations(app, await (await fetch(`${world.urls[app]}/openapi.json`)).json());
      const table = OPERATIONS[app] ?? {};
      for (const operation of served) {
        const spec = table[operation.key];
        if (!spec) {
          problems.push(`${app}: ${operation.key} is served but not in tools/e2e/src/fuzz/operations.ts`);
          continue;
        }
        if (operation.bodySchema && spec.body?.schema) problems.push(`${app}: ${operation.key} has a body schema in its document now; drop the table's`);
        if (operation.bodySchema && !spec.body) problems.push(`${app}: ${operation.key} takes a body; give a valid one in the table`);
        if (spec.body && !operation.bodySchema && !spec.body.schema) problems.push(`${app}: ${operation.key} has no body schema in its document; give one in the table`);
        for (const parameter of operation.parameters) {
          if (parameter.in === 'path' && !spec.params?.[parameter.name]) problems.push(`${app}: ${operation.key} path parameter ${parameter.name} has no values`);
          if (parameter.in === 'query' && !spec.query?.[parameter.name]) problems.push(`${app}: ${operation.key} query parameter ${parameter.name} has no values`);
        }
      }
      for (const key of Object.keys(table)) {
        if (!served.some((operation) => operation.key === key)) problems.push(`${app}: ${key} is in the table but not served`);
      }
      const committed = documents.get(app)?.map((operation) => operation.key) ?? [];
      expect({ app, operations: served.map((operation) => operation.key).sort() }).toEqual({ app, operations: [...committed].sort() });
    }
    expect(problems).toEqual([]);
  });
});

for (const [app, operations] of documents) {
  describe(app, () => {
    for (const operation of operations.filter(selected)) {
      it(`${operation.key}: no 5xx, 4xx are problem+json, refusals change nothing`, async () => {
        const spec = OPERATIONS[app]?.[operation.key];
        if (!spec) throw new Error(`${operation.key} is not in the operation table`);
        const report = await fuzzOperation(context, operation, spec, { seed: SEED, runs: RUNS, timeLimitMs: Math.max(300, (TIME_MS * share(operation)) / totalShares) });
        if (report) throw new Error(report);
      }, 120_000);
    }
  });
}

describe('coverage', () => {
  it('sent requests to every operation of every document', () => {
    const missed = [...documents.values()].flat().filter(selected).filter((operation) => !context.sent.get(`${operation.app} ${operation.key}`));
    expect(missed.map((operation) => `${operation.app} ${operation.key}`)).toEqual([]);
  });
});
