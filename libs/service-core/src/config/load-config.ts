import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';

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
 * the value (it may be a secret).
 */
export function loadConfig<T extends object>(
  configClass: new () => T,
  env: Record<string, string | undefined> = process.env,
): T {
  const declared = declaredProperties(configClass);
  const plain: Record<string, string> = {};
  for (const key of declared) {
    const value = env[key];
    if (value !== undefined && value !== '') plain[key] = value;
  }
  const config = plainToInstance(configClass, plain, { enableImplicitConversion: true });
  const errors = validateSync(config, { forbidUnknownValues: true });
  if (errors.length > 0) throw new ConfigValidationError(flatten(errors));
  return config;
}

function declaredProperties(configClass: new () => object): Set<string> {
  const validated = getMetadataStorage()
    .getTargetValidationMetadatas(configClass, '', true, false)
    .map((metadata) => metadata.propertyName);
  return new Set([...Object.keys(new configClass()), ...validated]);
}

function flatten(errors: ValidationError[]): string[] {
  return errors.flatMap((error) =>
    Object.keys(error.constraints ?? {}).map((rule) => `${error.property}: fails ${rule}`),
  );
}
