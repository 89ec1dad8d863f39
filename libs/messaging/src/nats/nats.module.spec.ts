import { describe, expect, it } from '@jest/globals';
import { createNkeyPair } from './bus-credentials.js';
import { natsConnectionOptions, natsTls } from './nats.module.js';

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

  it('requires TLS when a server is named tls:// or NATS_CA_FILE is set, trusting that CA; otherwise leaves it to the server', () => {
    expect(natsTls({ NATS_URL: 'nats://a:4222', NATS_CA_FILE: '' })).toBeUndefined();
    expect(natsTls({ NATS_URL: 'nats://a:4222, tls://b:4222', NATS_CA_FILE: '' })).toEqual({});
    expect(() => natsTls({ NATS_URL: 'nats://a:4222', NATS_CA_FILE: '/nowhere/nats-ca.pem' })).toThrow(/NATS_CA_FILE: the CA file cannot be read \(ENOENT\)/);
    expect(natsConnectionOptions({ ...base, tls: { ca: 'PEM' } }).tls).toEqual({ ca: 'PEM' });
    expect(natsConnectionOptions({ ...base, tls: {} }).tls).toEqual({});
    expect(natsConnectionOptions(base).tls).toBeUndefined();
  });
});

