import { SMTPServer } from 'smtp-server';
import { freePort } from './free-port.js';
import type { TestServerCertificate } from './test-certificates.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  receivedAt: number;
  /** Whether the connection it came over was encrypted. */
  secure: boolean;
}

function decodeQuotedPrintable(value: string): string {
  const bytes = value.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}

/** Just enough MIME for our single-part text e-mails. */
export function parseMail(raw: string): { subject: string; text: string; headers: Record<string, string> } {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const text =
    encoding === 'base64'
      ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(body)
        : body;
  return { subject: decodeHeader(headers.subject ?? ''), text: text.replace(/\r\n/g, '\n'), headers };
}

export interface SmtpSinkOptions {
  /** Told of each message as it arrives (the development mail catcher prints it). */
  onMail?: (mail: ReceivedMail) => void;
  /**
   * TLS with this certificate: `implicit` from the first byte (an `smtps://` relay, port 465), or
   * `starttls` offered after EHLO (port 587). Without it the sink speaks plain SMTP and offers no STARTTLS.
   */
  tls?: { certificate: TestServerCertificate; mode: 'implicit' | 'starttls' };
  /** AUTH required, with these credentials: a relay that takes mail only from its own users. */
  credentials?: { user: string; pass: string };
  /** Recipients at this domain are refused for good (550 to RCPT TO), as a relay refuses an unknown mailbox. */
  refuseDomain?: string;
}

/** An AUTH command the sink was sent: whose, and whether the connection was encrypted when it came. */
export interface AuthAttempt {
  user: string;
  secure: boolean;
  accepted: boolean;
}

/** A real SMTP server on loopback that keeps every message it accepts. */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  readonly authAttempts: AuthAttempt[] = [];
  /** Every recipient refused (see `refuseDomain`), once per time it was asked for. */
  readonly refusedRecipients: string[] = [];
  private readonly server: SMTPServer;

  constructor(private readonly options: SmtpSinkOptions = {}) {
    const { tls, credentials, onMail, refuseDomain } = options;
    this.server = new SMTPServer({
      secure: tls?.mode === 'implicit',
      ...(tls ? { key: tls.certificate.key, cert: tls.certificate.cert } : {}),
      authOptional: credentials === undefined,
      // Offering AUTH over plain SMTP lets the test see whether a client would send credentials in clear.
      allowInsecureAuth: true,
      disabledCommands: [...(tls?.mode === 'starttls' ? [] : ['STARTTLS']), ...(credentials ? [] : ['AUTH'])],
      logger: false,
      onAuth: (auth, session, callback) => {
        const accepted = auth.username === credentials?.user && auth.password === credentials?.pass;
        this.authAttempts.push({ user: auth.username ?? '', secure: session.secure, accepted });
        if (!accepted) return callback(new Error('Invalid username or password'));
        callback(null, { user: auth.username });
      },
      onRcptTo: (address, _session, callback) => {
        if (refuseDomain === undefined || !address.address.endsWith(`@${refuseDomain}`)) return callback();
        this.refusedRecipients.push(address.address);
        callback(Object.assign(new Error('No such mailbox'), { responseCode: 550 }));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const { subject, text } = parseMail(Buffer.concat(chunks).toString('utf8'));
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          const mail: ReceivedMail = { from, to: session.envelope.rcptTo.map((r) => r.address), subject, text, receivedAt: Date.now(), secure: session.secure };
          this.mails.push(mail);
          onMail?.(mail);
          callback();
        });
      },
    });
  }

  private port?: number;

  /** A sink listening on a free loopback port: pass its `url` as a service's SMTP_URL. */
  static async start(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
    const sink = new SmtpSink(options);
    await sink.listen(await freePort());
    return sink;
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = port;
  }

  /**
   * The SMTP_URL that reaches this sink, with its credentials. Over TLS the host is named
   * (`localhost`, as its certificate says), as a relay is; `smtps://` for implicit TLS.
   */
  get url(): string {
    if (this.port === undefined) throw new Error('the SMTP sink is not listening');
    return SmtpSink.urlFor(this.port, this.options);
  }

  /** The SMTP_URL of a sink with these options on `port`, before it listens (e.g. one relay replacing another there). */
  static urlFor(port: number, { tls, credentials }: Pick<SmtpSinkOptions, 'tls' | 'credentials'>): string {
    const scheme = tls?.mode === 'implicit' ? 'smtps' : 'smtp';
    const userinfo = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.pass)}@` : '';
    return `${scheme}://${userinfo}${tls ? 'localhost' : '127.0.0.1'}:${port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.mails.filter((mail) => mail.to.includes(address));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
