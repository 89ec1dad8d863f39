import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { ExampleIntegratorConfig } from './example-integrator.config.js';

describe('ExampleIntegratorConfig', () => {
  it('starts in production without NATS credentials: it does not use the bus', () => {
    expect(loadConfig(ExampleIntegratorConfig, { NODE_ENV: 'production', INTEGRATOR_SECRET: 'a-secret' }).PORT).toBe(3004);
  });
});
