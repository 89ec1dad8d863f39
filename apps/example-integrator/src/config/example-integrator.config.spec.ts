import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@availability/service-core';
import { assertStartsOrNamesTheProblems, readSharedSettings } from '@availability/testing';
import { loadContacts } from '../contacts/contacts.js';
import { SignatureGuard } from '../webhooks/signature.guard.js';
import { ExampleIntegratorConfig } from './example-integrator.config.js';

describe('ExampleIntegratorConfig', () => {
  it('starts in production without NATS credentials: it does not use the bus', () => {
    const real = { INTEGRATOR_SECRET: 'Integrator-secret-7f3a9c', INTEGRATOR_RECEIVED_TOKEN: 'R7q2Zp9LmX4vT8wKc3NfY6hB1sJd5GaE', METRICS_TOKEN: 'M4x8Kq2Lp7Zr9Tw3Nv6By1Hc5Jd0Gf2A' };
    expect(loadConfig(ExampleIntegratorConfig, { NODE_ENV: 'production', ...real }).PORT).toBe(3004);
  });

  it('starts, or stops listing its problems, with anything in its environment, and quotes no secret', () => {
    assertStartsOrNamesTheProblems(ExampleIntegratorConfig, (env) => {
      const config = readSharedSettings(loadConfig(ExampleIntegratorConfig, env));
      new SignatureGuard(config);
      loadContacts(config.INTEGRATOR_CONTACTS, config.INTEGRATOR_CONTACTS_FILE);
    });
  });
});
