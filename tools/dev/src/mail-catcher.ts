import { SMTPServer } from 'smtp-server';

/**
 * A local SMTP server for development: accepts every e-mail the platform sends and prints who it
 * is for and its subject, so invitations and offer notifications can be seen without a mail provider.
 */
export async function startMailCatcher(port: number, print: (line: string) => void): Promise<SMTPServer> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    banner: 'Availability Platform development mail catcher',
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/im.exec(raw)?.[1] ?? '(no subject)';
        const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
        print(`✉  to ${to}: ${subject}`);
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}
