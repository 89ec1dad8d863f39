import { describe, expect, it } from '@jest/globals';
import { ConfigValidationError, loadConfig } from './load-config.js';
import { ServiceConfig } from './service.config.js';

describe('loadConfig', () => {
  it('uses defaults and reads only the variables the class declares', () => {
    const config = loadConfig(ServiceConfig, { PATH: '/bin', DATABASE_POOL_SIZE: '7', HTTP_REQUEST_LOGS: 'false' });
    expect(config.DATABASE_POOL_SIZE).toBe(7);
    expect(config.HTTP_REQUEST_LOGS).toBe(false);
    expect(config.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(config).not.toHaveProperty('PATH');
  });

  it('lists every problem, naming the variable but never echoing its value', () => {
    let error: ConfigValidationError | undefined;
    try {
      loadConfig(ServiceConfig, { DATABASE_URL: 'mysql://secret-password@x', DATABASE_POOL_SIZE: 'lots' });
    } catch (caught) {
      error = caught as ConfigValidationError;
    }
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect(error?.problems.some((p) => p.startsWith('DATABASE_URL'))).toBe(true);
    expect(error?.problems.some((p) => p.startsWith('DATABASE_POOL_SIZE'))).toBe(true);
    expect(error?.message).not.toContain('secret-password');
  });
});
