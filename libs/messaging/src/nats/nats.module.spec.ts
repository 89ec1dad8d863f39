import { describe, expect, it } from '@jest/globals';
import { createNkeyPair } from './bus-credentials.js';
import { natsConnectionOptions } from './nats.module.js';

describe('natsConnectionOptions', () => {
  const base = { servers: 'nats://a:4222,nats://b:4222', name: 'offers-api', subjectPrefix: 'staging.' };

  it("connects with the service's nkey and replies under its own inbox", () => {
    const { seed } = createNkeyPair();
    const options = natsConnectionOptions({ ...base, nkeySeed: seed, requireCredentials: true });
    expect(options).toMatchObject({ servers: ['nats://a:4222', 'nats://b:4222'], name: 'offers-api', inboxPrefix: '_INBOX.staging.offers-api' });
    expect(typeof options.authenticator).toBe('function');
  });

  it('refuses to start without a seed where credentials are required (production), naming the variable only', () => {
    expect(() => natsConnectionOptions({ ...base, requireCredentials: true })).toThrow(/NATS_NKEY_SEED: must be set/);
    expect(natsConnectionOptions(base).authenticator).toBeUndefined();
  });
});
