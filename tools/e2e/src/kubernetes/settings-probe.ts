import { execFileSync } from 'node:child_process';

/** What a service's config class says, read from the built service (dist/) as it is deployed. */
export interface SettingsProbe {
  /** Every setting the class declares, with its default. */
  defaults: Record<string, unknown>;
  /** The settings loadConfig refuses in this environment, e.g. `NATS_NKEY_SEED` when it is missing in production. */
  refused: string[];
}

// Imports the service's config module (its class is the export that extends ServiceConfig) and
// loads the given environment with loadConfig, reporting the refused settings by name.
const PROBE = `
import { pathToFileURL } from 'node:url';
const [app, envJson] = process.argv.slice(1);
const core = await import(pathToFileURL('dist/libs/service-core/src/index.js').href);
const module = await import(pathToFileURL(\`dist/apps/\${app}/src/config/\${app}.config.js\`).href);
const classes = Object.values(module).filter((value) => typeof value === 'function' && value.prototype instanceof core.ServiceConfig);
if (classes.length !== 1) throw new Error(\`\${app}: \${classes.length} config classes\`);
const [Config] = classes;
let refused = [];
try {
  core.loadConfig(Config, JSON.parse(envJson));
} catch (error) {
  if (!(error instanceof core.ConfigValidationError)) throw error;
  refused = error.problems.map((problem) => problem.slice(0, problem.indexOf(':')));
}
process.stdout.write(JSON.stringify({ defaults: { ...new Config() }, refused }));
`;

export function probeSettings(app: string, env: Record<string, string>): SettingsProbe {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, app, JSON.stringify(env)], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return JSON.parse(output) as SettingsProbe;
}
