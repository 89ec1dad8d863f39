import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { productionProblems } from './production-rules.js';

export class ConfigValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigValidationError';
  }
}

/**
 * Reads environment variables into a typed, validated config class. Every service calls this once at
 * start-up, so a bad deployment fails fast with every problem listed instead of failing at first use.
 * Only the variables the class declares are read, and messages name the variable and the rule, never
 * the value (it may be a secret). With `NODE_ENV=production`, the settings' production rules apply too
 * (see InProduction).
 */
export function loadConfig<T extends object>(
  configClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const defaults = new configClass() as Record<string, unknown>;
  const plain: Record<string, unknown> = {};
  for (const key of declaredProperties(configClass)) {
    const value = env[key];
    if (value !== undefined && value !== '') plain[key] = coerce(value, defaults[key]);
  }
  const config = plainToInstance(configClass, plain, { enableImplicitConversion: true });
  const problems = flatten(validateSync(config, { forbidUnknownValues: true }));
  if ((config as { NODE_ENV?: string }).NODE_ENV === 'production') problems.push(...productionProblems(config));
  if (problems.length > 0) throw new ConfigValidationError(problems);
  return config;
}

function declaredProperties(configClass: new () => object): Set<string> {
  const validated = getMetadataStorage()
    .getTargetValidationMetadatas(configClass, '', true, false)
    .map((metadata) => metadata.propertyName);
  return new Set([...Object.keys(new configClass()), ...validated]);
}

/** Environment values are strings; a setting whose default is a number or boolean is read as one. */
function coerce(value: string, defaultValue: unknown): unknown {
  if (typeof defaultValue === 'number' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  if (typeof defaultValue === 'boolean') {
    const lower = value.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
    if (['0', 'false', 'no', 'off'].includes(lower)) return false;
  }
  return value;
}

function flatten(errors: ValidationError[]): string[] {
  return errors.flatMap((error) =>
    Object.keys(error.constraints ?? {}).map((rule) => `${error.property}: fails ${rule}`),
  );
}

/**
 * A value read from a setting at start-up (a file, a key list) whose reader throws: its message,
 * after the setting's name when given, becomes a ConfigValidationError problem, so the start fails
 * like any other bad setting.
 */
export function fromSetting<T>(read: () => T, setting?: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigValidationError) throw error;
    const message = (error as Error).message;
    throw new ConfigValidationError([setting ? `${setting}: ${message}` : message]);
  }
}
