import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { generateSigningKeysJson, signRequest, SigningKeyRing, type SignatureScheme } from '@availability/webhook-signing';
import { assertPython, PYTHON_INTEGRATOR_DIR } from '../src/python-integrator.js';

/**
 * The verification recipes integrators copy (docs/integrator-guide.md), in Java and Python, checked
 * against requests the platform's own signing library signed: each recipe must accept what the
 * platform signs and refuse every tampered, stale or misdirected request, scheme by scheme.
 */
const JAVA_RECIPE = resolve(process.cwd(), 'tools/e2e/recipes/java/WebhookVerifier.java');
const SECRET = 'recipe-secret-0123456789abcdef';
const OLD_SECRET = 'recipe-old-secret-0123456789ab';
const NOW = new Date('2026-11-24T10:15:02Z');
const ring = SigningKeyRing.parse(generateSigningKeysJson('recipes-2026-11'));
const KEY_X = ring.keySet().keys[0].x;
const ALL: SignatureScheme[] = ['hmac', 'v1', 'v1a'];
const ANSWER_BODY = '{"eventId":"6f1c1a52-3f43-4a4e-9a0f-0d1b1c3e2a11","offerId":"0b7c…","workerId":"Zoë 🧹","response":"applied","respondedAt":"2026-11-24T10:15:01.000Z"}';

interface Vector {
  name: string;
  /** What the verifier is given. */
  secrets: string[];
  keys: Record<string, string>;
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: string;
  now: Date;
  /** What each scheme must say: true accepted, false refused. */
  expected: { hmac: boolean; v1: boolean; v1a: boolean };
}

function signed(options: { schemes?: SignatureScheme[]; secrets?: string[]; method?: string; target?: string; body?: string; now?: Date }) {
  const headers = signRequest({
    secrets: options.secrets ?? [SECRET],
    schemes: options.schemes ?? ALL,
    signingKey: ring.active,
    method: options.method ?? 'POST',
    pathWithQuery: options.target ?? '/hooks/v1/offer/response',
    body: options.body ?? ANSWER_BODY,
    webhookId: '6f1c1a52-3f43-4a4e-9a0f-0d1b1c3e2a11:org',
    now: options.now ?? NOW,
  });
  return Object.entries(headers);
}

const base = { secrets: [SECRET], keys: { 'recipes-2026-11': KEY_X }, method: 'POST', target: '/hooks/v1/offer/response', body: ANSWER_BODY, now: NOW };
const VECTORS: Vector[] = [
  { ...base, name: 'signed', headers: signed({}), expected: { hmac: true, v1: true, v1a: true } },
  { ...base, name: 'rotation', headers: signed({ secrets: [OLD_SECRET, SECRET] }), expected: { hmac: true, v1: true, v1a: true } },
  { ...base, name: 'tampered-body', headers: signed({}), body: ANSWER_BODY.replace('applied', 'rejected'), expected: { hmac: false, v1: false, v1a: false } },
  { ...base, name: 'wrong-secret', secrets: ['someone-else-0123456789abcdef'], headers: signed({}), expected: { hmac: false, v1: false, v1a: true } },
  { ...base, name: 'stale', headers: signed({}), now: new Date(NOW.getTime() + 6 * 60_000), expected: { hmac: false, v1: false, v1a: false } },
  // hmac covers the method and path; the Standard Webhooks schemes cover only id, timestamp and body.
  { ...base, name: 'other-path', headers: signed({}), target: '/hooks/v1/contact/new/x', expected: { hmac: false, v1: true, v1a: true } },
  { ...base, name: 'unknown-key', keys: { 'someone-else': KEY_X }, headers: signed({}), expected: { hmac: true, v1: true, v1a: false } },
  {
    ...base,
    name: 'no-body',
    method: 'GET',
    target: '/hooks/v1/contact/new/3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20',
    body: '',
    headers: signed({ method: 'GET', target: '/hooks/v1/contact/new/3b9c7e1e-7d3f-4c52-a0de-5f7b3a9f1c20', body: '' }),
    expected: { hmac: true, v1: true, v1a: true },
  },
  {
    ...base,
    name: 'signature-header-twice',
    headers: signed({}).flatMap(([name, value]): Array<[string, string]> => (name === 'webhook-signature' ? value.split(' ').map((entry): [string, string] => [name, entry]) : [[name, value]])),
    expected: { hmac: true, v1: true, v1a: true },
  },
  { ...base, name: 'v1a-only', headers: signed({ schemes: ['v1a'] }), expected: { hmac: false, v1: false, v1a: true } },
];

function input(vectors: Vector[]): string {
  return vectors
    .map((v) =>
      [
        `name ${v.name}`,
        `now ${v.now.getTime()}`,
        ...v.secrets.map((s) => `secret ${s}`),
        ...Object.entries(v.keys).map(([kid, x]) => `key ${kid} ${x}`),
        `method ${v.method}`,
        `target ${v.target}`,
        ...v.headers.map(([name, value]) => `header ${name}: ${value}`),
        `body ${Buffer.from(v.body, 'utf8').toString('base64')}`,
        'end',
      ].join('\n'),
    )
    .join('\n');
}

/** `<name> hmac=ok v1=fail v1a=ok` lines → name → scheme → verdict ('ok', 'fail' or 'n/a'). */
function verdicts(output: string): Record<string, Record<string, string>> {
  return Object.fromEntries(
    output
      .trim()
      .split('\n')
      .map((line) => {
        const [name, ...pairs] = line.split(' ');
        return [name, Object.fromEntries(pairs.map((pair) => pair.split('=')))];
      }),
  );
}

const word = (accepted: boolean) => (accepted ? 'ok' : 'fail');

describe('Java recipe (JDK 17, no libraries)', () => {
  beforeAll(() => {
    const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
    if (probe.error) throw new Error(`java is not on PATH (${probe.error.message}); the Java recipe needs a JDK 17 or later`);
  });

  it('accepts what the platform signs and refuses the rest, in every scheme', () => {
    const run = spawnSync('java', [JAVA_RECIPE], { input: input(VECTORS), encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const got = verdicts(run.stdout);
    for (const v of VECTORS) expect([v.name, got[v.name]]).toEqual([v.name, { hmac: word(v.expected.hmac), v1: word(v.expected.v1), v1a: word(v.expected.v1a) }]);
  });

  it('drops an answer whose sequence is not above the highest applied for its (offer, worker)', () => {
    const answers = ['o1 w1 -', 'o1 w1 2', 'o1 w1 1', 'o1 w1 2', 'o1 w2 1', 'o1 w1 -', 'o1 w1 3'];
    const run = spawnSync('java', [JAVA_RECIPE], { input: answers.map((answer) => `answer ${answer}\n`).join(''), encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual(['applied', 'applied', 'dropped', 'dropped', 'applied', 'dropped', 'applied'].map((verdict, i) => `answer ${i + 1} ${verdict}`));
  });
});

describe('Python recipe (the Python integrator’s own functions, standard library only)', () => {
  beforeAll(() => assertPython());

  it('accepts what the platform signs and refuses the rest, in both shared-secret schemes', () => {
    const run = spawnSync('python3', ['verify_vectors.py'], { cwd: PYTHON_INTEGRATOR_DIR, input: input(VECTORS), encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const got = verdicts(run.stdout);
    for (const v of VECTORS) expect([v.name, got[v.name]]).toEqual([v.name, { hmac: word(v.expected.hmac), v1: word(v.expected.v1), v1a: 'n/a' }]);
  });
});
