import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentedProblemTypes } from '../src/fuzz/checks.js';
import { committedDocument, documentedOperations, type DocumentedOperation } from '../src/fuzz/openapi.js';
import { OPERATIONS } from '../src/fuzz/operations.js';
import type { ProxiedOperation } from '../src/fuzz/proxy.js';
import { type FuzzContext, fuzzOperation } from '../src/fuzz/runner.js';
import { StateProbe } from '../src/fuzz/state.js';
import { FUZZED_APPS, type FuzzWorld, PORTAL_UPSTREAMS, startFuzzWorld } from '../src/fuzz/world.js';

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
/** About a third of a second for each operation of one share (a refusal waits for the platform to settle). */
const TIME_MS = Number(process.env.FUZZ_TIME_MS ?? 42_000);
const ONLY = process.env.FUZZ_ONLY;

/** Operations the table marks as served but undocumented (the portal's proxy), fuzzed with their own generator. */
const undocumented = (app: string): DocumentedOperation[] =>
  Object.entries(OPERATIONS[app] ?? {})
    .filter(([, spec]) => spec.undocumented)
    .map(([key]) => ({ app, method: key.split(' ')[0], path: key.slice(key.indexOf(' ') + 1), key, parameters: [] }));
const documents = new Map(FUZZED_APPS.map((app) => [app, [...documentedOperations(app, committedDocument(app)), ...undocumented(app)]]));
const selected = (operation: DocumentedOperation) => !ONLY || operation.key === ONLY || operation.key.includes(ONLY);
/**
 * Operations with a body have more to explore: they get three shares of the time, the others one.
 * The portal's proxy stands in for every operation of four services and paths of its own: six
 * shares, and six times the runs.
 */
const share = (operation: DocumentedOperation) => {
  const spec = OPERATIONS[operation.app]?.[operation.key];
  return spec?.undocumented ? 6 : spec?.body ? 3 : 1;
};
/** What the portal forwards: every operation of the services behind it, under `/api/<name>`. */
const proxied: ProxiedOperation[] = Object.entries(PORTAL_UPSTREAMS).flatMap(([service, app]) =>
  (documents.get(app) ?? []).flatMap((operation) => {
    const spec = OPERATIONS[app]?.[operation.key];
    return spec ? [{ service, operation, spec }] : [];
  }),
);
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
    proxied,
    sent: new Map(),
  };
}, 120_000);

afterAll(async () => {
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
      for (const [key, spec] of Object.entries(table)) {
        const inDocument = served.some((operation) => operation.key === key);
        if (!inDocument && !spec.undocumented) problems.push(`${app}: ${key} is in the table but not served`);
        if (inDocument && spec.undocumented) problems.push(`${app}: ${key} is in the document now; describe it as the others and drop "undocumented"`);
      }
      const committed = documentedOperations(app, committedDocument(app)).map((operation) => operation.key);
      expect({ app, operations: served.map((operation) => operation.key).sort() }).toEqual({ app, operations: [...committed].sort() });
    }
    expect(problems).toEqual([]);
  });
});

for (const [app, operations] of documents) {
  describe(app, () => {
    for (const operation of operations.filter(selected)) {
      const timeLimitMs = Math.max(300, (TIME_MS * share(operation)) / totalShares);
      it(`${operation.key}: no 5xx, 4xx are problem+json, refusals change nothing`, async () => {
        const spec = OPERATIONS[app]?.[operation.key];
        if (!spec) throw new Error(`${operation.key} is not in the operation table`);
        const report = await fuzzOperation(context, operation, spec, { seed: SEED, runs: spec.undocumented ? RUNS * share(operation) : RUNS, timeLimitMs });
        if (report) throw new Error(report);
        // A long exploration of one operation (FUZZ_ONLY with a large FUZZ_TIME_MS) may take its whole share, and a last request 10 s more.
      }, timeLimitMs + 120_000);
    }
  });
}

describe('coverage', () => {
  it('sent requests to every operation of every document', () => {
    const missed = [...documents.values()].flat().filter(selected).filter((operation) => !context.sent.get(`${operation.app} ${operation.key}`));
    expect(missed.map((operation) => `${operation.app} ${operation.key}`)).toEqual([]);
  });
});
