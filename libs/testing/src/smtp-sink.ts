import { SMTPServer } from 'smtp-server';
import { freePort } from './free-port.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  receivedAt: number;
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

/** A real SMTP server on loopback that keeps every message it accepts. */
export class SmtpSink {
  readonly mails: ReceivedMail[] = [];
  private readonly server: SMTPServer;

  /** `onMail` is told of each message as it arrives (the development mail catcher prints it). */
  constructor(private readonly onMail?: (mail: ReceivedMail) => void) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const { subject, text } = parseMail(Buffer.concat(chunks).toString('utf8'));
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          const mail: ReceivedMail = { from, to: session.envelope.rcptTo.map((r) => r.address), subject, text, receivedAt: Date.now() };
          this.mails.push(mail);
          this.onMail?.(mail);
          callback();
        });
      },
    });
  }

  private port?: number;

  /** A sink listening on a free loopback port: pass its `url` as a service's SMTP_URL. */
  static async start(onMail?: (mail: ReceivedMail) => void): Promise<SmtpSink> {
    const sink = new SmtpSink(onMail);
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

  /** The SMTP_URL that reaches this sink. */
  get url(): string {
    if (this.port === undefined) throw new Error('the SMTP sink is not listening');
    return `smtp://127.0.0.1:${this.port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.mails.filter((mail) => mail.to.includes(address));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
