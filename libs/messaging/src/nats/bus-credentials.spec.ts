import { describe, expect, it } from '@jest/globals';
import { BUS_SERVICES, type BusService } from './bus-permissions.js';
import { createNkeyPair, natsServerConfig } from './bus-credentials.js';

describe('natsServerConfig', () => {
  const services = Object.fromEntries(BUS_SERVICES.map((service) => [service, createNkeyPair().publicKey])) as Record<BusService, string>;
  const base = { listen: '127.0.0.1:4222', storeDir: '/data/js', namespace: { subjectPrefix: '', stream: 'PLATFORM' }, services };

  it('is a single server without a cluster block', () => {
    const config = JSON.parse(natsServerConfig(base)) as Record<string, unknown>;
    expect(config.cluster).toBeUndefined();
    expect(config.server_name).toBeUndefined();
    expect(config.jetstream).toEqual({ store_dir: '/data/js' });
  });

  it('makes a cluster node: its name, its route listener, and routes that present the route credentials it requires', () => {
    const config = JSON.parse(
      natsServerConfig({
        ...base,
        serverName: 'n1',
        cluster: { name: 'platform', listen: '127.0.0.1:6222', routes: ['127.0.0.1:6223', '127.0.0.1:6224'], routeUser: 'route', routePassword: 'p@ss/word' },
      }),
    ) as Record<string, unknown>;
    expect(config.server_name).toBe('n1');
    expect(config.cluster).toEqual({
      name: 'platform',
      listen: '127.0.0.1:6222',
      authorization: { user: 'route', password: 'p@ss/word' },
      routes: ['nats-route://route:p%40ss%2Fword@127.0.0.1:6223', 'nats-route://route:p%40ss%2Fword@127.0.0.1:6224'],
    });
    // The clients' authorisation is the same as a single server's: routes are not users.
    expect(config.authorization).toEqual((JSON.parse(natsServerConfig(base)) as Record<string, unknown>).authorization);
  });

  it('puts routes over TLS with the route certificate and the CA that checks the other nodes', () => {
    const config = JSON.parse(
      natsServerConfig({
        ...base,
        serverName: 'n1',
        tls: { certFile: '/tls/client.pem', keyFile: '/tls/client.key' },
        cluster: {
          name: 'platform',
          listen: '127.0.0.1:6222',
          routes: ['127.0.0.1:6223'],
          routeUser: 'route',
          routePassword: 'secret',
          tls: { certFile: '/tls/route.pem', keyFile: '/tls/route.key', caFile: '/tls/ca.pem' },
        },
      }),
    ) as { tls: unknown; cluster: { tls: unknown } };
    expect(config.cluster.tls).toEqual({ cert_file: '/tls/route.pem', key_file: '/tls/route.key', ca_file: '/tls/ca.pem', timeout: 5 });
    expect(config.tls).toEqual({ cert_file: '/tls/client.pem', key_file: '/tls/client.key', timeout: 5 });
  });
});
