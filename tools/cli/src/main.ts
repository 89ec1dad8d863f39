import { DirectoryAdminClient, HttpError } from '@availability/platform-client';
import { type Command, parseCommand, USAGE, UsageError } from './args.js';
import { formatResults, IntegratorKit } from './check-integrator.js';
import { offerHint, seed } from './seed.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
}

/** Runs one command; returns the exit status (0 done, 1 failed, 2 wrong usage). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`error: ${error.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (command.command === 'help') {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (command.command === 'check-integrator') {
    const results = await new IntegratorKit(command.check).run();
    io.stdout(formatResults(results));
    return results.every((result) => result.passed) ? 0 : 1;
  }

  const admin = new DirectoryAdminClient(command.connection.directoryUrl, command.connection.adminToken);
  try {
    switch (command.command) {
      case 'seed': {
        const result = await seed(admin, command.seed);
        io.stdout(`${JSON.stringify(result, null, 2)}\n`);
        io.stderr(`${offerHint(result, command.connection.offersUrl, io.env.PORTAL_URL)}\n`);
        return 0;
      }
      case 'revoke-key':
        await admin.revokeApiKey(command.apiKeyId);
        io.stderr(`API key ${command.apiKeyId} revoked.\n`);
        return 0;
    }
  } catch (error) {
    io.stderr(`error: ${describeFailure(error, command.connection.directoryUrl)}\n`);
    return 1;
  }
}

/** A one-paragraph explanation of why the directory call failed, from its problem+json when there is one. */
export function describeFailure(error: unknown, directoryUrl: string): string {
  if (error instanceof HttpError) {
    const { status, json } = error.result as { status: number; json?: { detail?: string; errors?: Record<string, string[]> } };
    const lines = [`contact-directory answered ${status}: ${json?.detail ?? (error.result.text.slice(0, 300) || 'no details')}`];
    for (const [field, messages] of Object.entries(json?.errors ?? {})) lines.push(`  ${field}: ${messages.join('; ')}`);
    if (status === 401) lines.push('Check --admin-token (or DIRECTORY_ADMIN_TOKEN): it must equal the directory\'s DIRECTORY_ADMIN_TOKEN.');
    return lines.join('\n');
  }
  // fetch rejects with TypeError('fetch failed') and the network error as its cause.
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if ((error as Error)?.name === 'TypeError' && cause) {
    return `could not reach contact-directory at ${directoryUrl} (${cause.code ?? cause.message}). Is it running (npm start)? Set --directory-url or DIRECTORY_URL.`;
  }
  return (error as Error)?.message ?? String(error);
}

// Run as a program (not when a test imports it).
if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  });
}
