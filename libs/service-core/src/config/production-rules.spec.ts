import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { IsBoolean, IsString } from 'class-validator';
import { ConfigValidationError, loadConfig } from './load-config.js';
import { developmentOnly, InProduction, oneOf, productionProblems, realSecret, unset } from './production-rules.js';
import { ServiceConfig } from './service.config.js';

class ExampleConfig extends ServiceConfig {
  @IsString()
  @InProduction(realSecret('dev-token'))
  EXAMPLE_TOKEN = 'dev-token';

  @IsBoolean()
  @InProduction(developmentOnly)
  EXAMPLE_DEV_ROUTES = true;

  @IsString()
  @InProduction(oneOf('real'))
  EXAMPLE_TRANSPORT = 'recording';

  @IsString()
  @InProduction(unset)
  EXAMPLE_FAKE_FAILURES = '';
}

const strong = () => randomBytes(24).toString('base64url');

describe('production rules', () => {
  it('do not apply outside production', () => {
    expect(loadConfig(ExampleConfig, {}).EXAMPLE_TOKEN).toBe('dev-token');
    expect(() => loadConfig(ExampleConfig, { NODE_ENV: 'test' })).not.toThrow();
  });

  it('list every offending setting of a production start at once, base class included, naming no value', () => {
    let error: unknown;
    try {
      loadConfig(ExampleConfig, { NODE_ENV: 'production', EXAMPLE_FAKE_FAILURES: 'tok-123', METRICS_TOKEN: 'change-me-please-change-me-please-123' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    const problems = (error as ConfigValidationError).problems;
    expect(problems.map((problem) => problem.split(':')[0]).sort()).toEqual(
      ['EXAMPLE_DEV_ROUTES', 'EXAMPLE_FAKE_FAILURES', 'EXAMPLE_TOKEN', 'EXAMPLE_TRANSPORT', 'METRICS_TOKEN'].sort(),
    );
    expect(problems.join('\n')).not.toMatch(/tok-123|change-me-please|dev-token/);
    for (const problem of problems) expect(problem).toMatch(/when NODE_ENV is production$/);
  });

  it('accept a production configuration with real values', () => {
    const config = loadConfig(ExampleConfig, {
      NODE_ENV: 'production',
      EXAMPLE_TOKEN: strong(),
      EXAMPLE_DEV_ROUTES: 'false',
      EXAMPLE_TRANSPORT: 'real',
      METRICS_TOKEN: strong(),
    });
    expect(productionProblems(config)).toEqual([]);
  });

  it('refuse secrets that are empty, defaults, placeholders, short or one character repeated', () => {
    const rule = realSecret('dev-token');
    expect(rule('')).toBe('must be set');
    expect(rule(undefined)).toBe('must be set');
    expect(rule('dev-token')).toBe('must not be the development default');
    for (const placeholder of ['change-me-change-me-change-me-change-me', 'CHANGEME0123456789012345678901234', 'replace-me-with-a-real-secret-0000', '<token>', 'your-token-here-0123456789abcdefgh']) {
      expect(rule(placeholder)).toMatch(/placeholder/);
    }
    expect(rule('a'.repeat(40))).toMatch(/placeholder/);
    expect(rule('abcdefgh12345')).toBe('must be at least 32 characters');
    expect(rule('abababababababababababababababababab')).toBe('is not random enough');
    expect(realSecret(undefined, 16)('0123456789abcdefXYZ')).toBeUndefined();
  });

  it('never refuse a random secret for what it happens to contain', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 24, maxLength: 64 }), (bytes) => {
        const secret = Buffer.from(bytes).toString('base64url');
        fc.pre(new Set(secret).size >= 8 && !/^[<]/.test(secret));
        return realSecret('dev-token')(secret) === undefined || /^(change|replace|your|placeholder|todo)/i.test(secret);
      }),
    );
  });
});
