import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { verifyRequest } from '@availability/webhook-signing';
import type { TestServerCertificate } from './test-certificates.js';

/** One call the integrator received, as it arrived. */
export interface ReceivedCall {
  method: string;
  /** The path and query, as on the request line. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body as text. */
  body: string;
  /** The `webhook-id` header ('' when absent). */
  webhookId: string;
  /** Signed with the integrator's secret (the spec's `hmac` scheme). */
  verified: boolean;
  /** Arrived over TLS. */
  overTls: boolean;
}

/** What the integrator answers a call: a status, or a status and a body. */
export type IntegratorAnswer = number | { status: number; body?: string; contentType?: string; headers?: Record<string, string> };

export interface TestIntegratorOptions {
  /** The secret signatures are verified with (several while one rotates). */
  secret: string | string[];
  /** Serve https with this certificate; http when absent. */
  certificate?: TestServerCertificate;
  /**
   * Decides each answer, after the call is recorded. Default: 200 to `GET /test` (the unsigned check
   * made when a base URL is saved) and to every verified call, 401 to the rest.
   */
  answer?: (call: ReceivedCall) => IntegratorAnswer;
  /**
   * With the default answer: the first call of each webhook to this path (without query) is answered
   * 503, the next ones 200, so every delivery there needs its retry.
   */
  refuseFirstCallTo?: string;
}

/**
 * An integrator's own service for a test: on `localhost`, as integrators are addressed by host name,
 * over http or https, keeping every call it receives (repeats included) and answering as the test says.
 */
export class TestIntegrator {
  readonly calls: ReceivedCall[] = [];
  private readonly server: Server;

  private constructor(private readonly options: TestIntegratorOptions) {
    const handle = (req: IncomingMessage, res: ServerResponse) => this.receive(req, res);
    this.server = options.certificate ? createHttpsServer(options.certificate, handle) : createHttpServer(handle);
  }

  static async start(options: TestIntegratorOptions): Promise<TestIntegrator> {
    const integrator = new TestIntegrator(options);
    integrator.server.listen(0, 'localhost');
    await once(integrator.server, 'listening');
    return integrator;
  }

  /** Its base URL, by host name. */
  get url(): string {
    return `${this.options.certificate ? 'https' : 'http'}://localhost:${(this.server.address() as { port: number }).port}`;
  }

  /** The calls to `path` (without query), in the order they came. */
  callsTo(path: string): ReceivedCall[] {
    return this.calls.filter((call) => call.path.split('?')[0] === path);
  }

  /** The calls carrying `webhookId`. */
  withId(webhookId: string): ReceivedCall[] {
    return this.calls.filter((call) => call.webhookId === webhookId);
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }

  private defaultAnswer(call: ReceivedCall): number {
    if (call.path === '/test') return 200;
    if (!call.verified) return 401;
    const refused = this.options.refuseFirstCallTo;
    return refused !== undefined && call.path.split('?')[0] === refused && this.withId(call.webhookId).length === 1 ? 503 : 200;
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const call: ReceivedCall = {
        method: req.method ?? '',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        webhookId: String(req.headers['webhook-id'] ?? ''),
        verified: verifyRequest({ request: req, body, secret: this.options.secret }).ok,
        overTls: (req.socket as TLSSocket).encrypted === true,
      };
      this.calls.push(call);
      const answer = this.options.answer ? this.options.answer(call) : this.defaultAnswer(call);
      const { status, body: answerBody = '', contentType, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      res.writeHead(status, { ...headers, ...(contentType ? { 'content-type': contentType } : {}) }).end(answerBody);
    });
  }
}
