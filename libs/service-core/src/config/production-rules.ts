/**
 * What a setting may not be when `NODE_ENV=production`: settings made for development (a recording
 * push transport, development endpoints, loopback integrators, public default keys, placeholder
 * tokens) are declared next to the setting, and loadConfig refuses a production start with every
 * offending one listed. Messages name the variable and the rule, never the value.
 */
/** The setting's value, and the whole configuration for rules that weigh another setting too. */
export type ProductionRule = (value: unknown, config?: Record<string, unknown>) => string | undefined;

const rulesByClass = new Map<object, Array<{ property: string; rule: ProductionRule }>>();

/** Declares a rule the setting must pass in production. */
export function InProduction(rule: ProductionRule): PropertyDecorator {
  return (target, property) => {
    const rules = rulesByClass.get(target.constructor) ?? [];
    rules.push({ property: String(property), rule });
    rulesByClass.set(target.constructor, rules);
  };
}

/** Every production problem of a loaded configuration (its class's rules and its base classes'). */
export function productionProblems(config: object): string[] {
  const problems: string[] = [];
  for (let type = config.constructor; type && type !== Object; type = Object.getPrototypeOf(type)) {
    for (const { property, rule } of rulesByClass.get(type) ?? []) {
      const problem = rule((config as Record<string, unknown>)[property], config as Record<string, unknown>);
      if (problem) problems.push(`${property}: ${problem} when NODE_ENV is production`);
    }
  }
  return problems;
}

/** A switch made for development: must be off. */
export const developmentOnly: ProductionRule = (value) => (value === true || value === 'true' ? 'is for development only and must be off' : undefined);

/** Must be one of these values (e.g. a real transport rather than a recording one). */
export const oneOf =
  (...allowed: string[]): ProductionRule =>
  (value) =>
    allowed.includes(String(value)) ? undefined : `must be ${allowed.join(' or ')}`;

/** Must be set. */
export const required: ProductionRule = (value) => (value === '' || value === undefined ? 'must be set' : undefined);

/** Must be set, here or in the named alternative setting (e.g. a file holding the same value). */
export const requiredOr =
  (alternative: string): ProductionRule =>
  (value, config) =>
    value === '' && (config?.[alternative] ?? '') === '' ? `must be set (or ${alternative})` : undefined;

/** Must be left empty (a development or test aid). */
export const unset: ProductionRule = (value) => (value === '' || value === undefined ? undefined : 'is for development and tests only and must be empty');

export const MIN_PRODUCTION_SECRET_LENGTH = 32;
/** Placeholders of the kind sample configurations ship (`change-me-…`, `replace-me`, `<token>`). */
const PLACEHOLDER = /^(change-?me|replace-?me|your[-_]|placeholder|todo|<)|^(.)\2*$/i;

/**
 * A token or key that must be a real secret: set, at least 32 characters (unless said otherwise), not a development default
 * (pass the setting's default) or a placeholder, and not one character repeated. Random values are
 * never refused for what they happen to contain.
 */
export const realSecret =
  (developmentDefault?: string, minLength = MIN_PRODUCTION_SECRET_LENGTH): ProductionRule =>
  (value) => {
    const secret = typeof value === 'string' ? value : '';
    if (secret === '') return 'must be set';
    if (secret === developmentDefault) return 'must not be the development default';
    if (PLACEHOLDER.test(secret)) return 'looks like a placeholder; set a random value';
    if (secret.length < minLength) return `must be at least ${minLength} characters`;
    if (new Set(secret).size < 8) return 'is not random enough';
    return undefined;
  };
