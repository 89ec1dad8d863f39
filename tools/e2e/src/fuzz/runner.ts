import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { sendCharged } from './charges.js';
import { answerViolations, apiVersionViolations, portalViolations, tenantViolations } from './checks.js';
import { type FuzzOutcome, isResponse, send } from './driver.js';
import type { DocumentedOperation } from './openapi.js';
import type { OperationSpec } from './operations.js';
import { type ProxiedOperation, proxyRequestArbitrary } from './proxy.js';
import { type FuzzRequest, requestArbitrary } from './requests.js';
import { changes, type Snapshot, type StateProbe } from './state.js';
import { timeBoxedCheck } from './time-boxed-check.js';
import type { FuzzWorld } from './world.js';

export interface FuzzContext {
  world: FuzzWorld;
  probe: StateProbe;
  problemTypes: Map<string, number | undefined>;
  /** The operations of the services behind the portal, which its proxy generator sends through it. */
  proxied: ProxiedOperation[];
  /** `app METHOD path` → requests sent, for the coverage check. */
  sent: Map<string, number>;
  /** The state as it stands, while nothing is known to be running; undefined means "settle first". */
  baseline?: Snapshot;
  /**
   * Requests being checked now, and checked so far. More than one at once happens when a time share
   * ends while a run is still under way and the next run starts (see timeBoxedCheck).
   */
  active?: number;
  started?: number;
}

export class FuzzFailure extends Error {
  constructor(
    readonly request: FuzzRequest,
    readonly outcome: FuzzOutcome,
    readonly violations: string[],
  ) {
    super(violations.join('; '));
  }
}

async function rejectedAndUnchanged(context: FuzzContext, request: FuzzRequest, before: Snapshot, outcome: FuzzOutcome): Promise<string[]> {
  const after = await context.probe.snapshot();
  let changed = changes(before, after);
  if (changed.length === 0) {
    context.baseline = after;
    return [];
  }
  // Work an earlier request set off may still have been running: settle, then send the same request again.
  const settled = await context.probe.settle();
  const again = await send(context.world.urls[request.app], request, context.world.integratorSecret);
  if (!isResponse(again) || again.status < 400 || again.status >= 500) {
    context.baseline = undefined;
    return [];
  }
  changed = changes(settled, await context.probe.snapshot());
  context.baseline = undefined;
  return changed.length === 0 ? [] : [`rejected with HTTP ${(outcome as { status: number }).status} yet changed: ${changed.join(', ')}`];
}

/** Sends one request and checks the answer and the state; throws a FuzzFailure for anything not excused. */
export async function checkRequest(context: FuzzContext, request: FuzzRequest): Promise<void> {
  const alone = (context.active ?? 0) === 0;
  const started = (context.started = (context.started ?? 0) + 1);
  context.active = (context.active ?? 0) + 1;
  try {
    await checkOneRequest(context, request, () => alone && context.started === started);
  } finally {
    context.active -= 1;
  }
}

/** `alone`: no other request has been checked meanwhile, so a count read before and after this one moved for it alone. */
async function checkOneRequest(context: FuzzContext, request: FuzzRequest, alone: () => boolean): Promise<void> {
  const key = `${request.app} ${request.operation}`;
  context.sent.set(key, (context.sent.get(key) ?? 0) + 1);
  const before = context.baseline ?? (await context.probe.settle());
  const { outcome, violations: charges } = request.checkCharge
    ? await sendCharged(context.world, request, alone)
    : { outcome: await send(context.world.urls[request.app], request, context.world.integratorSecret), violations: [] };
  if (process.env.FUZZ_DEBUG) {
    const status = isResponse(outcome) ? outcome.status : outcome.error;
    console.error(`${request.operation} ${status} ${Math.round(outcome.ms)}ms ${Math.round(process.memoryUsage().heapUsed / 1e6)}MB ${describeRequest(request).split('\n')[0].slice(0, 100)}`);
  }
  const violations = [
    ...answerViolations(outcome, context.problemTypes, request.method),
    ...tenantViolations(context.world, request, outcome),
    ...portalViolations(context.world, request, outcome),
    ...apiVersionViolations(request, outcome),
    ...charges,
  ];
  if (isResponse(outcome) && outcome.status >= 400 && outcome.status < 500) {
    violations.push(...(await rejectedAndUnchanged(context, request, before, outcome)));
  } else if (isResponse(outcome) && outcome.status < 400) {
    // Accepted: if it wrote nothing it set nothing off either (events leave through the outbox tables).
    const after = await context.probe.snapshot();
    context.baseline = changes(before, after).length === 0 ? after : undefined;
  } else {
    context.baseline = undefined;
  }
  if (violations.length > 0) throw new FuzzFailure(request, outcome, violations);
}

/** A 32-bit seed per operation, so one operation's inputs do not depend on the others'. */
export function operationSeed(seed: number, operation: string): number {
  return createHash('sha256').update(`${seed}:${operation}`).digest().readInt32LE(0);
}

export interface FuzzOptions {
  seed: number;
  runs: number;
  timeLimitMs: number;
}

/** Runs the property for one operation; returns a report of the shrunk failure, or undefined. */
export async function fuzzOperation(context: FuzzContext, operation: DocumentedOperation, spec: OperationSpec, options: FuzzOptions): Promise<string | undefined> {
  const seed = operationSeed(options.seed, operation.key);
  const requests = spec.undocumented?.generator === 'portal-proxy' ? proxyRequestArbitrary(context.world, context.proxied) : requestArbitrary(operation, spec, context.world);
  const details = await timeBoxedCheck(
    fc.asyncProperty(requests, (request) => checkRequest(context, request)),
    { seed, numRuns: options.runs, timeLimitMs: options.timeLimitMs },
  );
  if (!details.failed) return undefined;
  const request = details.counterexample?.[0] as FuzzRequest | undefined;
  const failure = details.errorInstance instanceof FuzzFailure ? details.errorInstance : undefined;
  return failureReport(context, operation, options.seed, details.numRuns, details.numShrinks, request, failure, details.errorInstance);
}

/** The request as a developer reads it: request line, headers, body preview. */
export function describeRequest(request: FuzzRequest): string {
  const path = request.path.length > 300 ? `${request.path.slice(0, 300)}…(${request.path.length} chars)` : request.path;
  const lines = [`${request.method} ${path}`];
  for (const [name, value] of Object.entries(request.headers)) {
    const text = Array.isArray(value) ? value.join(' | ') : value;
    lines.push(`${name}: ${text.length > 120 ? `${text.slice(0, 60)}…(${text.length} chars)` : text}`);
  }
  if (request.sign) lines.push(`(signed at send time: ${request.sign})`);
  if (request.body) lines.push('', request.bodyPreview ?? `<${request.body.length} bytes>`);
  return lines.join('\n');
}

function failureReport(
  context: FuzzContext,
  operation: DocumentedOperation,
  seed: number,
  runs: number,
  shrinks: number,
  request: FuzzRequest | undefined,
  failure: FuzzFailure | undefined,
  error: unknown,
): string {
  if (!request || !failure) return `${operation.key} (${operation.app}): ${(error as Error)?.stack ?? String(error)}`;
  const outcome = failure.outcome;
  const answer = isResponse(outcome)
    ? `HTTP ${outcome.status} ${String(outcome.headers['content-type'] ?? '')}\n${outcome.text.slice(0, 500)}`
    : outcome.error;
  const stem = join(tmpdir(), `hostile-input-${seed}-${operation.key.replace(/[^A-Za-z0-9]+/g, '_')}`);
  writeFileSync(`${stem}.json`, JSON.stringify({ ...request, body: request.body?.toString('base64') }, null, 2));
  if (request.body) writeFileSync(`${stem}.body`, request.body);
  const curlHeaders = Object.entries(request.headers)
    .flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => `-H '${name}: ${item.length > 200 ? '…' : item.replace(/'/g, "'\\''")}'`))
    .join(' ');
  return [
    `${operation.key} (${operation.app}) failed after ${runs} run(s), shrunk ${shrinks} time(s):`,
    ...failure.violations.map((violation) => `  - ${violation}`),
    '',
    'Shrunk request:',
    describeRequest(request).replace(/^/gm, '  '),
    '',
    'Answer:',
    answer.replace(/^/gm, '  '),
    '',
    `Replay: FUZZ_SEED=${seed} FUZZ_ONLY='${operation.key}' npm run test:jest -- tools/e2e/test/fuzz.spec.ts`,
    `   or: curl -i -X ${request.method} '${context.world.urls[request.app]}${request.path.length > 2000 ? '…' : request.path}' ${curlHeaders}${request.body ? ` --data-binary @${stem}.body` : ''}`,
    `Full request (body base64): ${stem}.json`,
  ].join('\n');
}
