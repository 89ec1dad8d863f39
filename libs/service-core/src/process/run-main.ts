import { ConfigValidationError } from '../config/load-config.js';

/** The exit code of a start refused for its settings (EX_CONFIG, sysexits.h): restarting changes nothing. */
export const EXIT_CONFIGURATION = 78;

/**
 * Runs a service's entry point. A start refused for its settings ends with what is wrong, a line a
 * setting and no stack trace (nothing in it is a bug to debug), and exit code 78, which the worker
 * supervisor and an orchestrator can tell from a crash. Any other failure is thrown on as it is.
 */
export async function runMain(serviceName: string, main: () => Promise<unknown>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (!(error instanceof ConfigValidationError)) throw error;
    // Written synchronously on Linux (pipes, files, terminals), so nothing is lost to the exit.
    process.stderr.write(`${serviceName} cannot start: its configuration is invalid:\n  - ${error.problems.join('\n  - ')}\n`);
    process.exit(EXIT_CONFIGURATION);
  }
}
