import { createServer, type Server } from 'node:http';
import { SmtpSink } from '@availability/testing';

/** The links an e-mail holds (sign-in links, invitations), printed so a developer can open them. */
export function linksIn(text: string): string[] {
  return [...new Set(text.match(/https?:\/\/[^\s<>"]+/g) ?? [])];
}

/**
 * A local SMTP server for development: accepts every e-mail the platform sends, prints who it is for,
 * its subject and the links in it (a sign-in link is opened from here), and lists what arrived at `GET /api/v1/messages` in the shape Mailpit (the mail
 * catcher of docker-compose.yml) answers, so `npm run demo` checks e-mail the same way in both.
 */
export async function startMailCatcher(smtpPort: number, httpPort: number, print: (line: string) => void): Promise<{ close(): Promise<void> }> {
  const sink = new SmtpSink({
    onMail: (mail) => {
      print(`✉  to ${mail.to.join(', ')}: ${mail.subject}`);
      for (const link of linksIn(mail.text)) print(`     ${link}`);
    },
  });
  await sink.listen(smtpPort);
  const http: Server = createServer((req, res) => {
    if (req.method !== 'GET' || !req.url?.startsWith('/api/v1/messages')) {
      res.writeHead(404).end();
      return;
    }
    const messages = [...sink.mails].reverse().map((mail) => ({
      From: { Address: mail.from },
      To: mail.to.map((address) => ({ Address: address })),
      Subject: mail.subject,
      Created: new Date(mail.receivedAt).toISOString(),
    }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ total: messages.length, messages }));
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(httpPort, '127.0.0.1', () => resolve());
  });
  return {
    async close() {
      await new Promise((resolve) => http.close(resolve));
      await sink.close();
    },
  };
}
