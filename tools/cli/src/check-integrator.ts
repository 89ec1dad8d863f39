import { randomUUID } from 'node:crypto';
import { accepted, OutboundClient, OutboundRequestError, type ProbeAnswer } from '@availability/outbound-http';
import { DEFAULT_TOLERANCE_SECONDS, type SignatureScheme, STALE_PROBE_AGE_SECONDS, signRequest } from '@availability/webhook-signing';

export interface KitOptions {
  /** The integrator's base URL, without a trailing slash. */
  baseUrl: string;
  secret: string;
  /** What every call is signed with, as the platform signs calls to an endpoint that chose these. */
  schemes: readonly SignatureScheme[];
  timeoutMs: number;
}

export interface CheckResult {
  name: string;
  passed: boolean;
  /** For a failure: what to fix. */
  fix?: string;
  /** What the kit cannot see and the integrator should make sure of itself. */
  advice?: string;
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * The calls the platform makes, sent to an integrator's own service, and what each answer must be
 * (spec 5, the integrator guide): `/test` and a signed `/test/auth` accepted; a forged, a stale and a
 * tampered call refused; a repeat and an out-of-order answer acknowledged; every answer in time.
 * Local and private addresses are allowed: the kit runs where the integrator's service runs.
 */
export class IntegratorKit {
  private readonly client = new OutboundClient({ policy: { allowLoopback: true, allowPrivate: true } });
  private readonly organisationId = randomUUID();
  private readonly late: string[] = [];

  constructor(
    private readonly options: KitOptions,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async run(): Promise<CheckResult[]> {
    const results = [
      await this.expectAccepted('GET /test answers 2xx', { method: 'GET', path: '/test', headers: {} }, 'GET /test must answer 200 without any authentication'),
      await this.expectAccepted('signed GET /test/auth answers 2xx', this.signedAuth(this.options.secret, this.clock()), this.authFix()),
      await this.expectRefused('forged signature is refused', this.signedAuth(`wrong-${randomUUID()}`, this.clock()), 'a GET /test/auth signed with the wrong secret', 'unless the signature verifies with your secret'),
      await this.expectRefused('stale timestamp is refused', this.signedAuth(this.options.secret, this.stale()), `a GET /test/auth signed ${STALE_PROBE_AGE_SECONDS / 60} minutes ago`, `when the timestamp is more than ${DEFAULT_TOLERANCE_SECONDS / 60} minutes from your clock, so a recorded call cannot be replayed`),
      await this.expectRefused('tampered body is refused', this.tampered(), 'a POST /offer/response whose body was changed after it was signed', 'unless the signature verifies over the raw body exactly as received'),
      await this.repeat(),
      await this.outOfOrder(),
    ];
    results.push({
      name: `every answer within ${this.options.timeoutMs} ms`,
      passed: this.late.length === 0,
      fix: `answer within ${this.options.timeoutMs} ms (the platform's delivery timeout; it retries a late answer as a failure): no answer to ${this.late.join(', ')}; acknowledge first and do slow work afterwards`,
    });
    return results.map((result) => (result.passed ? { ...result, fix: undefined } : result));
  }

  private async expectAccepted(name: string, call: Call, fix: string): Promise<CheckResult> {
    const answer = await this.send(call);
    return { name, passed: accepted(answer), fix: `${fix}; it answered ${said(answer)}` };
  }

  private async expectRefused(name: string, call: Call, what: string, when: string): Promise<CheckResult> {
    const answer = await this.send(call);
    const passed = 'status' in answer && !accepted(answer);
    const fix = 'status' in answer
      ? `your service accepted ${what} (it answered ${answer.status}): answer 401 ${when}`
      : `${what} got ${said(answer)}: answer it with 401 instead`;
    return { name, passed, fix };
  }

  private async repeat(): Promise<CheckResult> {
    const webhookId = this.webhookId();
    const call = this.offerResponse(this.answerBody(randomUUID(), randomUUID(), 1), webhookId);
    const first = await this.send(call);
    const second = await this.send({ ...call, headers: this.offerResponse(call.body as string, webhookId).headers });
    return {
      name: 'repeated webhook-id is acknowledged',
      passed: accepted(first) && accepted(second),
      fix: `the platform retries a call with the same webhook-id until it gets a 2xx: answer 200 to a repeat too; it answered ${said(first)}, then ${said(second)}`,
      advice: 'the kit cannot see whether the repeat was applied twice: apply an event once, keyed by its eventId (or webhook-id)',
    };
  }

  private async outOfOrder(): Promise<CheckResult> {
    const [offerId, workerId] = [randomUUID(), randomUUID()];
    const newer = await this.send(this.offerResponse(this.answerBody(offerId, workerId, 2), this.webhookId()));
    const older = await this.send(this.offerResponse(this.answerBody(offerId, workerId, 1), this.webhookId()));
    return {
      name: 'older answer after a newer one is acknowledged',
      passed: accepted(newer) && accepted(older),
      fix: `answers can arrive out of order: acknowledge a stale one with 200 (and drop it); it answered ${said(newer)}, then ${said(older)}`,
      advice: 'the kit cannot see whether the older answer (sequence 1 after 2 for the same offer and worker) was dropped: keep the highest sequence per (offer, worker) and do not apply a lower one',
    };
  }

  private signedAuth(secret: string, now: Date): Call {
    const path = `${this.prefix()}/test/auth`;
    const schemes = ['hmac', ...this.options.schemes.filter((scheme) => scheme !== 'hmac')] as SignatureScheme[];
    const headers = signRequest({ secrets: [secret], schemes, method: 'GET', pathWithQuery: path, body: '', webhookId: `test-${randomUUID()}`, now });
    return { method: 'GET', path: '/test/auth', headers };
  }

  private tampered(): Call {
    const body = this.answerBody(randomUUID(), randomUUID(), 1);
    const call = this.offerResponse(body, this.webhookId());
    return { ...call, body: body.replace('"applied"', '"rejected"') };
  }

  /** A test Worker Offer Response as the platform's test events send it: `test: true` in the body and a header. */
  private offerResponse(body: string, webhookId: string): Call {
    const signed = signRequest({ secrets: [this.options.secret], schemes: this.options.schemes, method: 'POST', pathWithQuery: `${this.prefix()}/offer/response`, body, webhookId, now: this.clock() });
    return { method: 'POST', path: '/offer/response', headers: { ...signed, 'content-type': 'application/json', 'webhook-test': 'true' }, body };
  }

  private answerBody(offerId: string, workerId: string, sequence: number): string {
    const respondedAt = this.clock().toISOString();
    return JSON.stringify({ eventId: randomUUID(), offerId, workerId, response: 'applied', respondedAt, sequence, test: true });
  }

  /** As the platform forms it: `<eventId>:<organisationId>`. */
  private webhookId(): string {
    return `${randomUUID()}:${this.organisationId}`;
  }

  private async send(call: Call): Promise<ProbeAnswer> {
    const { timeoutMs } = this.options;
    try {
      const response = await this.client.send({ url: `${this.options.baseUrl}${call.path}`, method: call.method, headers: call.headers, body: call.body, timeoutMs, maxResponseBytes: 1024 });
      return { status: response.status };
    } catch (error) {
      const kind = error instanceof OutboundRequestError ? error.kind : 'unreachable';
      if (kind === 'timeout') this.late.push(`${call.method} ${call.path}`);
      return { failed: error instanceof OutboundRequestError ? `${kind}: ${error.message}` : kind };
    }
  }

  private authFix(): string {
    return `GET /test/auth must answer 200 when Timestamp and Authorization (hmac${this.options.schemes.includes('v1') ? ', and webhook-signature v1' : ''}) verify with your secret; check it is the secret given with --secret`;
  }

  private prefix(): string {
    return new URL(this.options.baseUrl).pathname.replace(/\/+$/, '');
  }

  private stale(): Date {
    return new Date(this.clock().getTime() - STALE_PROBE_AGE_SECONDS * 1000);
  }
}

function said(answer: ProbeAnswer): string {
  return 'status' in answer ? String(answer.status) : `no answer (${answer.failed})`;
}

/** One line a check: PASS or FAIL, its name, and for a failure what to fix; advice on lines of its own. */
export function formatResults(results: readonly CheckResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(result.passed ? `PASS ${result.name}` : `FAIL ${result.name}: ${result.fix}`);
  }
  for (const result of results) if (result.advice) lines.push(`ADVICE ${result.name}: ${result.advice}`);
  return `${lines.join('\n')}\n`;
}
