import type { IncomingMessage } from 'node:http';

/** A setting the benchmark gave this process; its absence is the benchmark's mistake. */
export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** A request's whole body as text. */
export function textOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
