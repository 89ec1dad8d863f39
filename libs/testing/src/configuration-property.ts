import { getMetadataStorage } from 'class-validator';
import fc from 'fast-check';
import { eventStreamOptions, natsTls } from '@availability/messaging';
import { ConfigValidationError, databaseUrl, rateLimitOptions, redisTarget, type ServiceConfig } from '@availability/service-core';

/** Settings whose values are secrets or may carry one (a password in a URL, a key in JSON): never quoted in a message. */
const SECRET_BEARING = /SECRET|TOKEN|PASSWORD|SEED|KEYS?$|_KEY_|URL|JSON/;

/** What an operator, a template or a copy and paste can put in a variable: wrong types, broken URLs, binary, huge values. */
function hostileSettingValue(defaultValue: unknown, allowed: string[]): fc.Arbitrary<string> {
  const anyText = fc.oneof(
    fc.constantFrom('', ' ', '\u0000', '\ud800', '\u202E', 'é', '%', '%zz', '\r\n', 'undefined', 'null', '[]', '{}', '-', '0', 'a'.repeat(100_000)),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({ maxLength: 40 }),
  );
  const numbers = fc.oneof(
    fc.integer({ min: 0, max: 100_000 }).map(String),
    fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map(String),
    fc.double().map(String),
    fc.constantFrom('1e3', '0x10', ' 42 ', '-0', 'NaN', 'Infinity', '9'.repeat(400), '1.5', '007'),
  );
  const switches = fc.constantFrom('true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 'TRUE', ' true ', 'maybe');
  // A URL setting gets URLs of its own scheme most often, so that what its checks let through is reached.
  const ownScheme = typeof defaultValue === 'string' ? /^([a-z+]+):\/\//.exec(defaultValue)?.[1] : undefined;
  const schemes = fc.constantFrom('postgres', 'postgresql', 'nats', 'tls', 'redis', 'rediss', 'redis+sentinel', 'http', 'https', 'smtp', 'smtps', 'file', '');
  const brokenAuthority = fc.constantFrom('[', '[::1', '[::1]:', '@@', 'a:99999', 'a:-1', ':', '#', '%zz', 'a%00b', 'xn--', '[fe80::1%25eth0]', '');
  const urls = fc
    .tuple(
      ownScheme ? fc.oneof({ weight: 3, arbitrary: fc.constant(ownScheme) }, { weight: 1, arbitrary: schemes }) : schemes,
      fc.oneof(fc.webAuthority({ withUserInfo: true, withPort: true, withIPv4: true, withIPv6: true }), brokenAuthority, anyText),
      fc.oneof(fc.constant(''), fc.webPath(), anyText),
      fc.oneof(fc.constant(''), fc.constantFrom('?sslmode=verify-full', '?sslmode=require', '?sslmode=', '?sslrootcert=/x', '?sslmode=disable&sslmode=verify-full'), anyText.map((text) => `?${text}`)),
    )
    .map(([scheme, authority, path, query]) => `${scheme}://${authority}${path}${query}`);
  const lists = fc
    .tuple(fc.array(fc.oneof(urls, anyText), { maxLength: 4 }), fc.constantFrom(',', ', ', ';', ' '))
    .map(([items, separator]) => items.join(separator));
  const secrets = fc.oneof(fc.base64String({ maxLength: 80 }), fc.stringMatching(/^[A-Za-z0-9_-]{8,64}$/), fc.stringMatching(/^S[UX][A-Z2-7]{50,60}$/));
  // JSON settings (contacts, a service account, key sets): whole, cut short, or with a quote missing.
  const jsonTexts = fc.oneof(
    fc.json({ maxDepth: 2 }),
    fc.record({ type: fc.constant('service_account'), project_id: fc.string(), private_key: secrets, client_email: fc.emailAddress() }).map((account) => JSON.stringify(account)),
    fc.tuple(fc.json({ maxDepth: 2 }), fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1))),
    fc.tuple(secrets, fc.constantFrom('{"private_key":', '{"private_key":"', '[', '{"keys":[{"id":"k1","private":')).map(([secret, start]) => `${start}${secret}`),
  );
  const paths = fc.constantFrom('/nonexistent/ca.pem', '/dev/null', '/', '.', '/proc/self/status', '/etc/hostname');
  const byType =
    typeof defaultValue === 'number'
      ? [{ weight: 6, arbitrary: numbers }]
      : typeof defaultValue === 'boolean'
        ? [{ weight: 6, arbitrary: switches }]
        : [
            { weight: ownScheme ? 12 : 2, arbitrary: urls },
            ...[lists, secrets, jsonTexts, paths, fc.constant(String(defaultValue))].map((arbitrary) => ({ weight: 2, arbitrary })),
          ];
  const choices = allowed.length > 0 ? [{ weight: 8, arbitrary: fc.constantFrom(...allowed) }] : [];
  return fc.oneof(...choices, ...byType, { weight: 2, arbitrary: anyText });
}

/** The values a setting's `@IsIn` allows (a transport, a mode), so that what each choice starts is reached. */
function allowedValues(configClass: new () => object, setting: string): string[] {
  return getMetadataStorage()
    .getTargetValidationMetadatas(configClass, '', true, false)
    .filter((metadata) => metadata.propertyName === setting && metadata.name === 'isIn')
    .flatMap((metadata) => (metadata.constraints?.[0] as unknown[]).map(String));
}

/**
 * Environments for a config class: NODE_ENV and one to three other settings set, each to anything of its
 * kind, over `base` (settings that open a path, e.g. a transport), so that whole starts succeed often
 * enough for what runs after loading to be reached.
 */
export function hostileEnvironments(configClass: new () => object, base: Record<string, string> = {}): fc.Arbitrary<Record<string, string>> {
  const defaults = new configClass() as Record<string, unknown>;
  const settings = Object.keys(defaults).filter((key) => key !== 'NODE_ENV');
  const setting = fc.oneof(...settings.map((key) => hostileSettingValue(defaults[key], allowedValues(configClass, key)).map((value) => [key, value] as const)));
  return fc
    .tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(undefined, 'development', 'test') }, { weight: 2, arbitrary: fc.constant('production') }, { weight: 1, arbitrary: fc.constantFrom('Production', ' production', '') }),
      fc.array(setting, { minLength: 1, maxLength: 3 }),
    )
    .map(([nodeEnv, chosen]) => ({ ...base, ...(nodeEnv === undefined ? {} : { NODE_ENV: nodeEnv }), ...Object.fromEntries(chosen) }));
}

/**
 * What every start must do with any environment: either start (return) or stop with a
 * ConfigValidationError listing its problems, never with another error a person must decode, and
 * never quoting a secret-bearing value in the message.
 */
export function assertStartsOrNamesTheProblems(
  configClass: new () => object,
  start: (env: Record<string, string>) => unknown,
  { base = {}, runs = 1_000 }: { base?: Record<string, string>; runs?: number } = {},
): void {
  fc.assert(
    fc.property(hostileEnvironments(configClass, base), (env) => {
      const message = refusal(start, env);
      if (message === undefined) return;
      for (const [key, value] of Object.entries(env)) {
        if (SECRET_BEARING.test(key) && repeats(message, value)) {
          throw new Error(`the message quotes the value of ${key}: ${message}`);
        }
      }
    }),
    { numRuns: runs },
  );
}

/**
 * Whether the message holds ten characters or more of the value in a row (error messages quote
 * snippets), counting only runs with a capital, a digit or a sign: the rules' own words are lower-case
 * (`sslrootcert`, `postgres://`) and may be in the value too.
 */
function repeats(message: string, value: string): boolean {
  const window = 10;
  for (let start = 0; start + window <= value.length; start++) {
    const run = value.slice(start, start + window);
    if (/[^a-z./:_= -]/.test(run) && message.includes(run)) return true;
  }
  return false;
}

/** The refusal's message, or undefined when the start succeeds; any other error fails the property. */
function refusal(start: (env: Record<string, string>) => unknown, env: Record<string, string>): string | undefined {
  try {
    start(env);
    return undefined;
  } catch (error) {
    if (!(error instanceof ConfigValidationError)) throw new Error(`the start failed with ${(error as Error)?.name}: ${(error as Error)?.message}`);
    if (error.problems.length === 0) throw new Error('a ConfigValidationError without a problem');
    return error.message;
  }
}

/** What every service derives from the shared settings as it starts (connections, limits, the stream). */
export function readSharedSettings<T extends ServiceConfig>(config: T): T {
  databaseUrl(config);
  redisTarget(config);
  rateLimitOptions(config, 'any-service');
  natsTls(config);
  eventStreamOptions(config);
  return config;
}
