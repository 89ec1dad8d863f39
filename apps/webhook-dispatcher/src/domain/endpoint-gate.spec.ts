import { describe, expect, it } from '@jest/globals';
import type { Verdict } from './classify.js';
import { type Admission, EndpointGate, type EndpointGateOptions, formatDuration, InMemoryEndpointHealthStore } from './endpoint-gate.js';

const OPTIONS: EndpointGateOptions = {
  inFlightLimit: 2,
  maxWaiting: 5,
  lineWaitMs: 250,
  stallMs: 500,
  busyRetryMs: 1_000,
  slowShare: 1_000,
  failureThreshold: 3,
  cooldownMs: 1_000,
  disableAfterMs: 24 * 3_600_000,
  healthTtlMs: 5_000,
};
const SUCCESS: Verdict = { kind: 'success' };
const FAILURE: Verdict = { kind: 'retry', countsAsEndpointFailure: true };
const PACED: Verdict = { kind: 'retry', retryAfterMs: 1_000, countsAsEndpointFailure: false };
const BASE = 'https://hooks.example.com';
/** A call's report: `verdict` after `durationMs`. */
const done = (verdict: Verdict, durationMs = 10, url = BASE) => ({ verdict, durationMs, baseUrl: BASE, url });

function gateAt(options: Partial<EndpointGateOptions> = {}) {
  const clock = { now: 0 };
  const store = new InMemoryEndpointHealthStore(() => clock.now);
  const gate = new EndpointGate({ ...OPTIONS, ...options }, store, () => clock.now);
  /** One admitted call ending with `verdict`. */
  const call = async (key: string, verdict: Verdict) => {
    expect(await gate.admit(key, false)).toEqual({ kind: 'go' });
    return gate.report(key, done(verdict));
  };
  return { clock, store, gate, call };
}

/** What an admission would be if asked now, without waiting for it. */
async function settled(admission: Promise<Admission>): Promise<Admission | 'waiting'> {
  return Promise.race([admission, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))]);
}

describe('EndpointGate: the circuit', () => {
  it('opens after the threshold, holds everything for the cool-down, lets one trial through, closes on its success', async () => {
    const { clock, gate, call } = gateAt();
    await call('a', FAILURE);
    await call('a', FAILURE);
    expect(await gate.admit('b', false)).toEqual({ kind: 'go' }); // endpoints are apart
    expect(await call('a', FAILURE)).toEqual({ closed: false, disabled: null });
    expect(await gate.admit('a', false)).toEqual({ kind: 'hold', trialInMs: 1_000 });
    clock.now = 400;
    expect(await gate.admit('a', false)).toEqual({ kind: 'hold', trialInMs: 600 });

    clock.now = 1_000;
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' }); // the trial
    expect(await gate.admit('a', false)).toEqual({ kind: 'hold', trialInMs: 1_000 }); // everyone else waits for it
    expect(await gate.report('a', done(FAILURE))).toEqual({ closed: false, disabled: null });
    expect(await gate.admit('a', false)).toEqual({ kind: 'hold', trialInMs: 1_000 }); // open again

    clock.now = 2_000;
    expect(await call('a', SUCCESS)).toEqual({ closed: true, disabled: null });
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
    expect(await gate.report('a', done(SUCCESS))).toEqual({ closed: false, disabled: null }); // it was closed already
  });

  it('lets another trial through when one never reported back (its process died) after a cool-down', async () => {
    const { clock, gate, call } = gateAt();
    for (let i = 0; i < 3; i++) await call('a', FAILURE);
    clock.now = 1_000;
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
    clock.now = 1_999;
    expect((await gate.admit('a', false)).kind).toBe('hold');
    clock.now = 2_000;
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
  });

  it('is not opened by an integrator pacing us (429), nor by client errors', async () => {
    const { gate, call } = gateAt();
    for (let i = 0; i < 5; i++) await call('a', PACED);
    for (let i = 0; i < 5; i++) await call('a', { kind: 'client-error' });
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
  });

  it('is reset when the organisation re-saves its endpoint', async () => {
    const { gate, call } = gateAt();
    for (let i = 0; i < 3; i++) await call('a', FAILURE);
    expect((await gate.admit('a', false)).kind).toBe('hold');
    await gate.reset('a');
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
  });
});

describe('EndpointGate: health shared through the store', () => {
  it('disables an endpoint failing without a success for disableAfterMs, and says so once', async () => {
    const { clock, store, gate, call } = gateAt({ failureThreshold: 1_000 });
    await call('a', FAILURE);
    expect(store.endpoints.get('a')?.failingSince).toBe(0);
    clock.now = 23 * 3_600_000;
    expect(await call('a', FAILURE)).toEqual({ closed: false, disabled: null });
    clock.now = 24.1 * 3_600_000;
    expect(await call('a', FAILURE)).toEqual({ closed: false, disabled: `${BASE} had no successful call for 24.1 hours` });
    expect(await gate.admit('a', false)).toEqual({ kind: 'dead', reason: `${BASE} had no successful call for 24.1 hours` });
    expect(store.disabled).toHaveLength(1);
    expect(gate.inFlight('a')).toBe(0);
  });

  it('ends a failure streak with a success', async () => {
    const { clock, store, call } = gateAt({ failureThreshold: 1_000 });
    await call('a', FAILURE);
    clock.now = 20 * 3_600_000;
    await call('a', SUCCESS);
    expect(store.endpoints.get('a')?.failingSince).toBeNull();
    clock.now = 30 * 3_600_000;
    expect(await call('a', FAILURE)).toEqual({ closed: false, disabled: null });
    expect(store.endpoints.get('a')?.failingSince).toBe(30 * 3_600_000);
  });

  it('disables an endpoint that answers 410 Gone, naming what was called', async () => {
    const { gate } = gateAt();
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
    expect(await gate.report('a', done({ kind: 'disable' }, 10, `${BASE}/offer/response`))).toEqual({ closed: false, disabled: `${BASE}/offer/response answered 410 Gone` });
    expect((await gate.admit('a', false)).kind).toBe('dead');
  });

  it('sees another process disable the endpoint once its copy is older than healthTtlMs; reset enables it', async () => {
    const { clock, store, gate } = gateAt();
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
    gate.cancel('a');
    await store.disable('a', BASE, 'gone elsewhere');
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' }); // its copy is fresh
    gate.cancel('a');
    clock.now = 5_000;
    expect(await gate.admit('a', false)).toEqual({ kind: 'dead', reason: 'gone elsewhere' });
    await gate.reset('a');
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
  });

  it('reads the store once for concurrent admissions of an endpoint it does not know', async () => {
    const { store, gate } = gateAt();
    let reads = 0;
    const read = store.read.bind(store);
    store.read = (key) => {
      reads += 1;
      return read(key);
    };
    await Promise.all([gate.admit('a', false), gate.admit('a', false)]);
    expect(reads).toBe(1);
  });
});

describe('EndpointGate: calls in flight', () => {
  it('limits calls per endpoint, hands a freed slot to the next in line, and turns callers away from a stalled endpoint', async () => {
    const { clock, gate } = gateAt({ maxWaiting: 1 });
    expect(await gate.admit('a')).toEqual({ kind: 'go' });
    expect(await gate.admit('a')).toEqual({ kind: 'go' });
    expect(await gate.admit('b')).toEqual({ kind: 'go' });
    const waiting = gate.admit('a');
    expect(await settled(waiting)).toBe('waiting');
    expect(await gate.admit('a')).toEqual({ kind: 'wait', ms: 1_000 }); // the line is full
    await gate.report('a', done(SUCCESS));
    expect(await waiting).toEqual({ kind: 'go' });
    expect(gate.inFlight('a')).toBe(2);
    clock.now = 600; // nothing finished for longer than stallMs
    expect(await gate.admit('a')).toEqual({ kind: 'wait', ms: 1_000 });
    gate.cancel('a');
    gate.cancel('a');
    expect(gate.inFlight('a')).toBe(0);
  });

  it('turns callers already in line away as soon as the endpoint stalls, before their wait is over', async () => {
    // On the real clock: the callers in line wake by themselves when the endpoint counts as stalled.
    const gate = new EndpointGate({ ...OPTIONS, inFlightLimit: 1, stallMs: 30, lineWaitMs: 5_000 }, new InMemoryEndpointHealthStore());
    // The stall is counted from the busy spell's start, the first admission: so is the wait measured.
    const started = Date.now();
    expect(await gate.admit('a')).toEqual({ kind: 'go' });
    const answers = await Promise.all([gate.admit('a'), gate.admit('a')]);
    expect(answers.map((a) => a.kind)).toEqual(['wait', 'wait']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('keeps callers in line while calls finish, however long the line waits in all', async () => {
    const { clock, gate } = gateAt({ inFlightLimit: 3, stallMs: 40 });
    for (let i = 0; i < 3; i++) expect(await gate.admit('a')).toEqual({ kind: 'go' });
    const line = [gate.admit('a'), gate.admit('a'), gate.admit('a')];
    // A call finishes every 25 ms (never 40 ms without progress): slow, not stalled.
    for (let i = 0; i < 3; i++) {
      clock.now += 25;
      await gate.report('a', done(SUCCESS));
    }
    expect((await Promise.all(line)).map((a) => a.kind)).toEqual(['go', 'go', 'go']);
  });

  it('makes an endpoint’s line as long as its slots work through in lineWaitMs at its call duration, within bounds', async () => {
    const { gate } = gateAt({ inFlightLimit: 2, stallMs: 10_000, maxWaiting: 10, lineWaitMs: 100 });
    const lineAllowed = async (key: string) => {
      const line: Array<Promise<Admission>> = [];
      for (;;) {
        const admission = gate.admit(key);
        if ((await settled(admission)) !== 'waiting') break;
        line.push(admission);
      }
      for (let i = 0; i < line.length; i++) await gate.report(key, done(SUCCESS));
      await Promise.all(line);
      return line.length;
    };
    const callsTaking = async (key: string, durationMs: number) => {
      for (let i = 0; i < 2; i++) await gate.admit(key, false);
      for (let i = 0; i < 50; i++) {
        await gate.report(key, done(SUCCESS, durationMs));
        await gate.admit(key, false);
      }
    };
    for (let i = 0; i < 2; i++) await gate.admit('new', false);
    expect(await lineAllowed('new')).toBe(10); // no call finished yet: taken to be fast
    await callsTaking('fast', 4);
    expect(await lineAllowed('fast')).toBe(10); // 2 slots × 100 ms / 4 ms = 50, at most maxWaiting
    await callsTaking('middling', 40);
    expect(await lineAllowed('middling')).toBe(5); // 2 × 100 / 40
    await callsTaking('slow', 1_000);
    expect(await lineAllowed('slow')).toBe(2); // at least one per slot
  });

  it('holds a caller that waited in line while the circuit opened, and passes its slot on', async () => {
    const { gate } = gateAt({ inFlightLimit: 1, failureThreshold: 1 });
    expect(await gate.admit('a', false)).toEqual({ kind: 'go' });
    const waiting = gate.admit('a');
    expect(await settled(waiting)).toBe('waiting');
    await gate.report('a', done(FAILURE));
    expect(await waiting).toEqual({ kind: 'hold', trialInMs: 1_000 });
    expect(gate.inFlight('a')).toBe(0);
  });

  it('gives up waiting after lineWaitMs', async () => {
    const gate = new EndpointGate({ ...OPTIONS, inFlightLimit: 1, stallMs: 10_000, lineWaitMs: 20 }, new InMemoryEndpointHealthStore());
    expect(await gate.admit('a')).toEqual({ kind: 'go' });
    expect(await gate.admit('a')).toEqual({ kind: 'wait', ms: 1_000 });
    gate.cancel('a');
    expect(await gate.admit('a')).toEqual({ kind: 'go' });
  });
});

describe('EndpointGate: the slow endpoints\' share', () => {
  // Three slots a slow endpoint may hold beyond its first; four in flight per endpoint.
  const share = { inFlightLimit: 4, slowShare: 3 };
  const BUSY = { kind: 'wait', ms: 1_000 };

  it('lets endpoints that have not answered hold no more than the share beyond one call each', async () => {
    const { gate } = gateAt(share);
    for (let i = 0; i < 4; i++) expect(await gate.admit('hanging-1', false)).toEqual({ kind: 'go' }); // 3 beyond its first
    expect(await gate.admit('hanging-2', false)).toEqual({ kind: 'go' }); // a first call always goes
    expect(await gate.admit('hanging-2', false)).toEqual(BUSY); // the share is taken
    expect(gate.inFlight('hanging-2')).toBe(1);
    // Turned away at once, not in line: a caller waiting would hold a slot too.
    expect(await settled(gate.admit('hanging-2'))).toEqual(BUSY);
    expect(await gate.admit('healthy', false)).toEqual({ kind: 'go' });
  });

  it('does not count a prompt endpoint, and a healthy one shows it is prompt with its first call', async () => {
    const { clock, gate } = gateAt(share);
    for (let i = 0; i < 4; i++) expect(await gate.admit('hanging', false)).toEqual({ kind: 'go' });
    expect(await gate.admit('healthy', false)).toEqual({ kind: 'go' });
    expect(await gate.admit('healthy', false)).toEqual(BUSY);
    clock.now = 10;
    await gate.report('healthy', done(SUCCESS, 10));
    for (let i = 0; i < 4; i++) expect(await gate.admit('healthy', false)).toEqual({ kind: 'go' }); // its own limit only
    expect(await gate.admit('healthy', false)).toEqual(BUSY);
  });

  it('counts an endpoint whose calls take longer than stallMs, or whose prompt answer is older than stallMs', async () => {
    const { clock, gate } = gateAt(share);
    expect(await gate.admit('slow', false)).toEqual({ kind: 'go' });
    clock.now = 900;
    await gate.report('slow', done(SUCCESS, 900)); // answered, but slowly
    for (let i = 0; i < 4; i++) expect(await gate.admit('slow', false)).toEqual({ kind: 'go' });
    expect(await gate.admit('was-prompt', false)).toEqual({ kind: 'go' });
    clock.now = 910;
    await gate.report('was-prompt', done(SUCCESS, 10));
    expect(await gate.admit('was-prompt', false)).toEqual({ kind: 'go' });
    expect(await gate.admit('was-prompt', false)).toEqual({ kind: 'go' }); // prompt: not counted
    clock.now = 910 + OPTIONS.stallMs;
    expect(await gate.admit('was-prompt', false)).toEqual(BUSY); // nothing prompt since: slow like the rest
    // Slow calls ending free their places in the share (3 + 1 beyond the first calls, then 1 + 1).
    await gate.report('slow', done(FAILURE, 1_000));
    await gate.report('slow', done(FAILURE, 1_000));
    expect(await gate.admit('was-prompt', false)).toEqual({ kind: 'go' });
  });
});

describe('formatDuration', () => {
  it('says how long in the unit a person would use', () => {
    expect(formatDuration(45_000)).toBe('45 s');
    expect(formatDuration(12 * 60_000)).toBe('12 min');
    expect(formatDuration(26.5 * 3_600_000)).toBe('26.5 hours');
  });
});
