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

  it('takes every server of a NATS_URL list (spaces allowed) and never stops reconnecting across them', () => {
    const options = natsConnectionOptions({ ...base, servers: 'nats://a:4222, nats://b:4222 ,nats://c:4222' });
    expect(options.servers).toEqual(['nats://a:4222', 'nats://b:4222', 'nats://c:4222']);
    expect(options).toMatchObject({ maxReconnectAttempts: -1 });
    expect(options.noRandomize).not.toBe(true);
  });

  it('refuses to start without a seed where credentials are required (production), naming the variable only', () => {
    expect(() => natsConnectionOptions({ ...base, requireCredentials: true })).toThrow(/NATS_NKEY_SEED: must be set/);
    expect(natsConnectionOptions(base).authenticator).toBeUndefined();
  });
});
