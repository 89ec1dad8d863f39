import { execFileSync } from 'node:child_process';

/** What a service's config class says, read from the built service (dist/) as it is deployed. */
export interface SettingsProbe {
  /** Every setting the class declares, with its default. */
  defaults: Record<string, unknown>;
  /** The settings loadConfig refuses in this environment, e.g. `NATS_NKEY_SEED` when it is missing in production. */
  refused: string[];
}

/** One service's configuration, loaded from this environment. */
export interface SettingsQuestion {
  app: string;
  env: Record<string, string>;
}

// Imports each service's config module (its class is the export that extends ServiceConfig) and
// loads each given environment with loadConfig, reporting the refused settings by name.
const PROBE = `
import { pathToFileURL } from 'node:url';
const questions = JSON.parse(process.argv[1]);
const core = await import(pathToFileURL('dist/libs/service-core/src/index.js').href);
const answers = [];
for (const { app, env } of questions) {
  const module = await import(pathToFileURL(\`dist/apps/\${app}/src/config/\${app}.config.js\`).href);
  const classes = Object.values(module).filter((value) => typeof value === 'function' && value.prototype instanceof core.ServiceConfig);
  if (classes.length !== 1) throw new Error(\`\${app}: \${classes.length} config classes\`);
  const [Config] = classes;
  let refused = [];
  try {
    core.loadConfig(Config, env);
  } catch (error) {
    if (!(error instanceof core.ConfigValidationError)) throw error;
    refused = error.problems.map((problem) => problem.slice(0, problem.indexOf(':')));
  }
  answers.push({ defaults: { ...new Config() }, refused });
}
process.stdout.write(JSON.stringify(answers));
`;

/**
 * The answers to every question, in order, from one process: loading the platform's libraries takes
 * a process a second or two, and loading a configuration takes nothing.
 */
export function probeSettings(questions: SettingsQuestion[]): SettingsProbe[] {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, JSON.stringify(questions)], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return JSON.parse(output) as SettingsProbe[];
}
