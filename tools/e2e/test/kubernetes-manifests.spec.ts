/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-non-null-assertion -- rendered manifests are untyped YAML; a missing object fails the test where it is read */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Service, ServiceAccount } from 'kubernetes-models/v1';
import { createTestDatabase, queryDatabase, type TestDatabase } from '@availability/testing';
import { type K8sObject, readYaml, renderKustomization, splitImage } from '../src/kubernetes/kustomize.js';
import { probeSettings } from '../src/kubernetes/settings-probe.js';

/**
 * deploy/kubernetes: each overlay rendered (the Kustomize subset of src/kubernetes/kustomize.ts), every
 * object checked against the Kubernetes schemas (kubernetes-models), and the manifests checked against
 * the services they run: settings as the built config classes declare and accept them, health probes,
 * grace periods against the drain, selectors, images, commands, network policies, the infrastructure's
 * values, and the migrations Jobs run as deployed. Needs the build (`npm run build`), as `npm test` does.
 */
const ROOT = 'deploy/kubernetes';
/** Where the chart's Sentinels listen (over TLS only, with its `tls.enabled`). */
const SENTINEL_PORT = 26379;
const PLATFORM = ['offers-api', 'contact-directory', 'notification-service', 'webhook-dispatcher', 'portal'];
/** The services the portal forwards `/api/<service>/…` to, by the setting naming each. */
const PORTAL_UPSTREAMS: Record<string, string> = {
  'contact-directory': 'DIRECTORY_URL',
  'offers-api': 'OFFERS_API_URL',
  'notification-service': 'NOTIFICATION_SERVICE_URL',
  'webhook-dispatcher': 'WEBHOOK_DISPATCHER_URL',
};
/** firebase-admin's timeout of one FCM call, which a push job in hand may wait for. */
const FCM_TIMEOUT_MS = 15_000;
/** How long the portal waits for the service a request is forwarded to (a constant of its proxy). */
const PORTAL_UPSTREAM_TIMEOUT_MS = Number(/const UPSTREAM_TIMEOUT_MS = ([\d_]+);/.exec(readFileSync('apps/portal/src/api-proxy/api-proxy.ts', 'utf8'))?.[1]?.replaceAll('_', ''));
/** SIGTERM to exit, at most: work in hand finishes, then the HTTP server closes (README "Graceful termination"). */
const DRAIN_MS: Record<string, (s: Record<string, number>) => number> = {
  'offers-api': (s) => s.HTTP_REQUEST_TIMEOUT_MS + s.DIRECTORY_TIMEOUT_MS,
  'contact-directory': (s) => s.HTTP_REQUEST_TIMEOUT_MS + Math.max(2 * s.WEBHOOK_TEST_TIMEOUT_MS, s.SUGGESTIONS_TIMEOUT_MS),
  'notification-service': (s) => s.HTTP_REQUEST_TIMEOUT_MS + Math.max(s.DIRECTORY_TIMEOUT_MS, FCM_TIMEOUT_MS, s.SMTP_TIMEOUT_MS),
  'webhook-dispatcher': (s) => s.HTTP_REQUEST_TIMEOUT_MS + s.DIRECTORY_TIMEOUT_MS + s.WEBHOOK_TIMEOUT_MS,
  'example-integrator': (s) => s.HTTP_REQUEST_TIMEOUT_MS,
  portal: (s) => s.HTTP_REQUEST_TIMEOUT_MS + PORTAL_UPSTREAM_TIMEOUT_MS,
};
/** Pod labels of the infrastructure, as its charts and operator set them (infrastructure/README.md). */
const POSTGRES_POD = { 'cnpg.io/cluster': 'platform-db' };
const NATS_POD = { 'app.kubernetes.io/name': 'nats', 'app.kubernetes.io/instance': 'platform-nats', 'app.kubernetes.io/component': 'nats' };
const REDIS_POD = { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': 'platform-redis' };
const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
};

interface Environment {
  name: string;
  apps: string[];
  minReplicas: number;
  nats: Record<string, any>;
  redis: Record<string, any>;
  postgres: Record<string, any>;
  /** cert-manager's Issuers and Certificates for the bus and the cache (infrastructure/certificates*.yaml). */
  certificates: K8sObject[];
}

const helmValues = (chart: string, overlay?: string) =>
  mergeValues(readYaml(`${ROOT}/infrastructure/${chart}/values.yaml`)[0], overlay ? readYaml(`${ROOT}/infrastructure/${chart}/${overlay}`)[0] : {}) as Record<string, any>;
const environments: Environment[] = [
  {
    name: 'development',
    apps: [...PLATFORM, 'example-integrator'],
    minReplicas: 1,
    nats: helmValues('nats', 'values.development.yaml'),
    redis: helmValues('redis', 'values.development.yaml'),
    postgres: readYaml(`${ROOT}/infrastructure/postgresql/cluster.development.yaml`)[0] as Record<string, any>,
    certificates: readYaml(`${ROOT}/infrastructure/certificates.development.yaml`) as K8sObject[],
  },
  {
    name: 'production',
    apps: PLATFORM,
    minReplicas: 3,
    nats: helmValues('nats'),
    redis: helmValues('redis'),
    postgres: readYaml(`${ROOT}/infrastructure/postgresql/cluster.yaml`)[0] as Record<string, any>,
    certificates: readYaml(`${ROOT}/infrastructure/certificates.yaml`) as K8sObject[],
  },
];

describe.each(environments)('Kubernetes manifests: $name overlay', (environment) => {
  let objects: K8sObject[];
  const defaults = new Map<string, Record<string, unknown>>();
  const of = (kind: string) => objects.filter((object) => object.kind === kind);
  const named = (kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name);
  const deployments = () => of('Deployment');
  const workloads = () => [...of('Deployment'), ...of('Job')];
  const appOf = (object: K8sObject) => object.spec.template.metadata.labels['app.kubernetes.io/name'] as string;
  const settings = (object: K8sObject) => settingsOf(object.spec.template.spec.containers[0], objects);
  const plain = (object: K8sObject) => Object.fromEntries([...settings(object)].filter(([, setting]) => setting.value !== undefined).map(([name, setting]) => [name, setting.value as string]));
  const effective = (object: K8sObject) => ({ ...defaults.get(appOf(object)), ...plain(object) });
  const platformConfig = () => named('ConfigMap', configMapName(deployments()[0], 'platform-config'))!.data as Record<string, string>;

  beforeAll(() => {
    objects = renderKustomization(`${ROOT}/overlays/${environment.name}`);
    const probes = probeSettings(environment.apps.map((app) => ({ app, env: {} })));
    environment.apps.forEach((app, index) => defaults.set(app, probes[index].defaults));
  });

  it('renders objects valid against the Kubernetes schemas, each kind and name once, all in one namespace', () => {
    const problems: string[] = [];
    for (const object of objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      if (!Model) problems.push(`${object.kind}/${object.metadata.name}: no schema for ${object.apiVersion} ${object.kind}`);
      else
        try {
          new Model(object as never).validate();
        } catch (error) {
          problems.push(`${object.kind}/${object.metadata.name}: ${(error as Error).message}`);
        }
    }
    expect(problems).toEqual([]);
    const ids = objects.map((object) => `${object.kind}/${object.metadata.name}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(objects.map((object) => object.metadata.namespace)).size).toBe(1);
    expect(objects.every((object) => object.metadata.labels?.['app.kubernetes.io/part-of'] === 'availability-platform')).toBe(true);
  });

  it('runs each service of the environment with its ServiceAccount, Service, budget and autoscaler, and a migrations Job where it owns a schema', () => {
    expect(deployments().map((deployment) => deployment.metadata.name).sort()).toEqual([...environment.apps].sort());
    for (const app of environment.apps) {
      for (const kind of ['ServiceAccount', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler']) expect([app, kind, named(kind, app) !== undefined]).toEqual([app, kind, true]);
      expect([app, named('Job', `${app}-migrate`) !== undefined]).toEqual([app, existsSync(`apps/${app}/src/migrate.ts`)]);
    }
    expect(of('Job')).toHaveLength(environment.apps.filter((app) => existsSync(`apps/${app}/src/migrate.ts`)).length);
  });

  it('sets only settings the service declares: plain ones from existing ConfigMaps, secrets by key from documented Secrets', () => {
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8').split('\n');
    for (const workload of workloads()) {
      const declared = Object.keys(defaults.get(appOf(workload))!);
      for (const [name, setting] of settingsOf(workload.spec.template.spec.containers[0], objects)) {
        expect([workload.metadata.name, name, declared.includes(name)]).toEqual([workload.metadata.name, name, true]);
        if (setting.secret) {
          const row = readme.find((line) => line.startsWith(`| \`${setting.secret}\``));
          expect([setting.secret, setting.key, row?.includes(`\`${setting.key}\``)]).toEqual([setting.secret, setting.key, true]);
        }
      }
    }
  });

  it('passes each service’s own configuration check, but for the secrets it is given in the cluster', () => {
    // Each deployment's own settings, and (production) an empty production configuration, which finds what production requires.
    const production = environment.name === 'production';
    const questions = deployments().flatMap((deployment) => [
      { app: appOf(deployment), env: plain(deployment) },
      ...(production ? [{ app: appOf(deployment), env: { NODE_ENV: 'production' } }] : []),
    ]);
    const answers = probeSettings(questions);
    deployments().forEach((deployment, index) => {
      const app = appOf(deployment);
      const given = settings(deployment);
      const requiredSecrets = [...given].filter(([, setting]) => setting.secret && !setting.optional).map(([name]) => name);
      const { refused } = answers[production ? 2 * index : index];
      expect([app, refused.filter((name) => !requiredSecrets.includes(name))]).toEqual([app, []]);
      if (!production) return;
      const required = answers[2 * index + 1].refused;
      expect([app, required.filter((name) => !requiredSecrets.includes(name) && plain(deployment)[name] === undefined)]).toEqual([app, []]);
      expect(plain(deployment).NODE_ENV).toBe('production');
    });
  });

  it('mounts every file a setting names', () => {
    for (const deployment of deployments()) {
      const container = deployment.spec.template.spec.containers[0];
      for (const [name, value] of Object.entries(plain(deployment)).filter(([, value]) => value.startsWith('/'))) {
        const mount = (container.volumeMounts ?? []).find((candidate: { mountPath: string }) => value.startsWith(`${candidate.mountPath}/`));
        const volume = deployment.spec.template.spec.volumes.find((candidate: { name: string }) => candidate.name === mount?.name);
        expect([name, volume?.secret?.optional ?? false, volume?.secret?.items?.some((item: { path: string }) => value.endsWith(`/${item.path}`)) ?? true]).toEqual([name, false, true]);
      }
    }
  });

  it('probes the health endpoints on the port the service listens on', () => {
    const health = readFileSync('libs/service-core/src/health/health.module.ts', 'utf8');
    expect(health).toMatch(/@Controller\('health'\)[\s\S]*@Get\(\)\s+@HealthCheck\(\)\s+(async\s+)?ready\(\)[\s\S]*@Get\('live'\)/);
    for (const deployment of deployments()) {
      const app = appOf(deployment);
      expect(readFileSync(`apps/${app}/src/${app}.module.ts`, 'utf8')).toContain('HealthModule.forRoot(');
      const container = deployment.spec.template.spec.containers[0];
      expect([app, container.readinessProbe.httpGet.path, container.livenessProbe.httpGet.path, container.startupProbe.httpGet.path]).toEqual([app, '/health', '/health/live', '/health/live']);
      const port = container.ports.find((candidate: { name: string }) => candidate.name === 'http');
      expect([app, port?.containerPort]).toEqual([app, Number(effective(deployment).PORT)]);
      for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) expect(probe.httpGet.port).toBe('http');
      expect(named('Service', app)!.spec.ports).toEqual([{ name: 'http', port: port.containerPort, targetPort: 'http' }]);
    }
  });

  it('gives each pod longer to stop than its preStop pause and its drain', () => {
    // Read from the portal's proxy: a renamed constant fails here rather than counting as no wait.
    expect(PORTAL_UPSTREAM_TIMEOUT_MS).toBeGreaterThan(0);
    for (const deployment of deployments()) {
      const app = appOf(deployment);
      const pod = deployment.spec.template.spec;
      const pause = pod.containers[0].lifecycle?.preStop?.sleep?.seconds as number;
      expect([app, pause >= 3]).toEqual([app, true]);
      const numbers = Object.fromEntries(Object.entries(effective(deployment)).map(([name, value]) => [name, Number(value)]));
      const drainSeconds = DRAIN_MS[app](numbers) / 1000;
      expect([app, pod.terminationGracePeriodSeconds > pause + drainSeconds]).toEqual([app, true]);
    }
  });

  it('runs every pod unprivileged and bounded', () => {
    for (const workload of workloads()) {
      const pod = workload.spec.template.spec;
      const name = workload.metadata.name;
      expect([name, pod.securityContext.runAsNonRoot, pod.securityContext.runAsUser > 0, pod.securityContext.seccompProfile?.type]).toEqual([name, true, true, 'RuntimeDefault']);
      expect([name, pod.automountServiceAccountToken, named('ServiceAccount', pod.serviceAccountName)?.automountServiceAccountToken]).toEqual([name, false, false]);
      for (const container of pod.containers) {
        const security = container.securityContext;
        expect([name, security.allowPrivilegeEscalation, security.readOnlyRootFilesystem, security.privileged ?? false, security.capabilities.drop]).toEqual([name, false, true, false, ['ALL']]);
        for (const bound of ['requests', 'limits']) expect([name, bound, Object.keys(container.resources[bound]).sort()]).toEqual([name, bound, ['cpu', 'memory']]);
      }
    }
  });

  it('selects each Deployment’s pods, and only those, from its Service, budget and autoscaler', () => {
    const jobPods = of('Job').map((job) => job.spec.template.metadata.labels as Record<string, string>);
    for (const deployment of deployments()) {
      const app = deployment.metadata.name;
      const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
      expect(matches(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
      expect(deployment.spec.replicas).toBeUndefined();
      const selectors = { service: named('Service', app)!.spec.selector, budget: named('PodDisruptionBudget', app)!.spec.selector.matchLabels };
      for (const [what, selector] of Object.entries(selectors)) {
        const selected = deployments().filter((candidate) => matches(selector, candidate.spec.template.metadata.labels));
        expect([app, what, selected.map((candidate) => candidate.metadata.name), jobPods.some((labels) => matches(selector, labels))]).toEqual([app, what, [app], false]);
      }
      const budget = named('PodDisruptionBudget', app)!.spec;
      expect([app, (budget.minAvailable === undefined) !== (budget.maxUnavailable === undefined)]).toEqual([app, true]);
      if (environment.name === 'production') expect([app, budget.minAvailable]).toEqual([app, 1]);
      const autoscaler = named('HorizontalPodAutoscaler', app)!.spec;
      expect([app, autoscaler.scaleTargetRef]).toEqual([app, { apiVersion: 'apps/v1', kind: 'Deployment', name: app }]);
      if (PLATFORM.includes(app)) expect([app, autoscaler.minReplicas]).toEqual([app, environment.minReplicas]);
      expect(autoscaler.maxReplicas).toBeGreaterThanOrEqual(autoscaler.minReplicas);
    }
  });

  it('runs each service’s own image, tagged, with commands the service builds', () => {
    for (const workload of workloads()) {
      const app = appOf(workload);
      for (const container of workload.spec.template.spec.containers) {
        const [name, tag] = splitImage(container.image);
        expect([workload.metadata.name, name.replace(/^.*\/(availability\/)/, '$1'), tag !== undefined && tag !== 'latest']).toEqual([workload.metadata.name, `availability/${app}`, true]);
        expect(container.image).toBe(named('Deployment', app)!.spec.template.spec.containers[0].image);
        const [node, script] = container.command as string[];
        expect([node, script]).toEqual(['node', expect.stringMatching(new RegExp(`^dist/apps/${app}/src/[a-z-]+\\.js$`))]);
        expect([script, existsSync(script.replace(/^dist\//, '').replace(/\.js$/, '.ts'))]).toEqual([script, true]);
      }
    }
  });

  it('reaches the bus, Redis and PostgreSQL as the infrastructure’s values set them up', () => {
    const config = platformConfig();
    const cluster = environment.nats.config.cluster;
    const servers = config.NATS_URL.split(',');
    if (cluster.enabled) expect(servers).toEqual(Array.from({ length: cluster.replicas }, (_, i) => `tls://platform-nats-${i}.platform-nats-headless:4222`));
    else expect(servers).toEqual(['tls://platform-nats:4222']);
    expect(Number(config.EVENTS_STREAM_REPLICAS)).toBe(environment.name === 'production' ? 3 : 1);
    expect(Number(config.EVENTS_STREAM_REPLICAS)).toBeLessThanOrEqual(servers.length);
    expect(environment.nats.config.jetstream).toMatchObject({ enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } });
    // The stream's bound fits each server's volume, with room for JetStream's own files.
    const volume = environment.nats.config.jetstream.fileStore.pvc.size as string;
    expect(volume).toMatch(/^\d+Gi$/);
    expect(Number(config.EVENTS_STREAM_MAX_BYTES)).toBeLessThanOrEqual(0.85 * parseInt(volume, 10) * 1024 ** 3);

    const redis = environment.redis;
    expect(redis.commonConfiguration).toMatch(/^appendonly yes$/m);
    expect(redis.commonConfiguration).toMatch(/^maxmemory-policy noeviction$/m);
    const redisSecret = settings(named('Deployment', 'webhook-dispatcher')!).get('REDIS_URL')!.secret;
    expect(redis.auth).toMatchObject({ enabled: true, existingSecret: redisSecret });
    if (redis.sentinel.enabled) {
      // The Sentinels require the servers' password (the chart's default), which the services send them over TLS.
      expect(redis.auth.sentinel ?? true).toBe(true);
      expect(config.REDIS_SENTINEL_MASTER).toBe(redis.sentinel.masterSet);
      expect(config.REDIS_SENTINELS.split(',')).toEqual(Array.from({ length: redis.replica.replicaCount }, (_, i) => `platform-redis-node-${i}.platform-redis-headless:${SENTINEL_PORT}`));
    } else expect(config.REDIS_SENTINELS).toBeUndefined();
    expect(environment.name !== 'production' || redis.sentinel.enabled).toBe(true);

    expect(environment.postgres).toMatchObject({ kind: 'Cluster', metadata: { name: 'platform-db' }, spec: { bootstrap: { initdb: { database: 'platform' } } } });
    for (const workload of workloads()) {
      const database = settings(workload).get('DATABASE_URL');
      if (!database) continue;
      expect(database).toMatchObject({ secret: `${environment.postgres.metadata.name}-app`, key: 'uri', optional: false });
      // Over TLS, trusting the operator's CA: its certificate mounted where DATABASE_CA_FILE says.
      const caFile = settings(workload).get('DATABASE_CA_FILE')?.value ?? '';
      expect([workload.metadata.name, caFileSecret(workload, caFile)]).toEqual([workload.metadata.name, `${environment.postgres.metadata.name}-ca`]);
    }
    if (environment.name === 'production') expect(environment.postgres.spec.instances).toBe(3);
  });

  it('reaches NATS and Redis over TLS, trusting the internal CA by its certificate alone, at names the servers’ certificates carry', () => {
    const namespace = objects[0].metadata.namespace!;
    const config = platformConfig();
    const { nats, redis, certificates } = environment;
    const issued = (secretName: string) => certificates.find((object) => object.kind === 'Certificate' && object.spec.secretName === secretName);

    // The internal CA: signed by a self-signed Issuer, and signing the servers' certificates as a CA Issuer.
    expect(certificates.map((object) => `${object.apiVersion}/${object.kind}`).filter((kind) => !['cert-manager.io/v1/Issuer', 'cert-manager.io/v1/Certificate'].includes(kind))).toEqual([]);
    const caIssuers = certificates.filter((object) => object.kind === 'Issuer' && object.spec.ca);
    expect(caIssuers).toHaveLength(1);
    const [caIssuer] = caIssuers;
    const ca = issued(caIssuer.spec.ca.secretName)!;
    expect(ca.spec.isCA).toBe(true);
    expect(certificates.find((object) => object.kind === 'Issuer' && object.metadata.name === ca.spec.issuerRef.name)?.spec).toEqual({ selfSigned: {} });
    const serverCertificate = (secretName: string, what: string) => {
      const certificate = issued(secretName);
      expect([what, certificate?.spec.issuerRef, certificate?.spec.isCA ?? false]).toEqual([what, { name: caIssuer.metadata.name, kind: 'Issuer', group: 'cert-manager.io' }, false]);
      expect([what, certificate!.spec.usages]).toEqual([what, expect.arrayContaining(['server auth'])]);
      // Names in a namespace are this environment's.
      for (const name of certificate!.spec.dnsNames as string[]) if (name.includes('.svc')) expect([what, name]).toEqual([what, expect.stringContaining(`.${namespace}.svc`)]);
      return certificate!;
    };
    // As the services check a server's name (node:tls), wildcards included.
    const covers = (certificate: K8sObject, host: string) =>
      checkServerIdentity(host, { subject: {}, subjectaltname: (certificate.spec.dnsNames as string[]).map((name) => `DNS:${name}`).join(', ') } as unknown as PeerCertificate) === undefined;

    // NATS: clients over TLS only; the routes too, each server checking the other's certificate against
    // the CA (tlsCA: ca_file in every tls block). The monitor port stays http for the chart's probes.
    const natsSecret = nats.config.nats.tls?.secretName as string;
    expect(nats.config.nats.tls).toMatchObject({ enabled: true, secretName: expect.any(String) });
    expect(nats.config.monitor.tls?.enabled ?? false).toBe(false);
    const natsCertificate = serverCertificate(natsSecret, 'nats');
    const natsHosts = config.NATS_URL.split(',').map((server) => new URL(server.trim()).hostname);
    if (nats.config.cluster.enabled) {
      expect(nats.config.cluster.tls).toMatchObject({ enabled: true, secretName: natsSecret });
      expect(nats.tlsCA).toMatchObject({ enabled: true, secretName: natsSecret, key: 'ca.crt' });
      expect(natsCertificate.spec.usages).toEqual(expect.arrayContaining(['server auth', 'client auth']));
      // The chart's routes: tls://<release>-<i>.<release>-headless:6222.
      natsHosts.push(...Array.from({ length: nats.config.cluster.replicas }, (_, i) => `platform-nats-${i}.platform-nats-headless`));
    }
    for (const host of natsHosts) expect(['nats', host, covers(natsCertificate, host)]).toEqual(['nats', host, true]);

    // Redis: servers and Sentinels over TLS, replication included; clients known by their password.
    const redisSecret = redis.tls?.existingSecret as string;
    expect(redis.tls).toMatchObject({ enabled: true, existingSecret: expect.any(String), certFilename: 'tls.crt', certKeyFilename: 'tls.key', certCAFilename: 'ca.crt', authClients: false });
    const redisCertificate = serverCertificate(redisSecret, 'redis');
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const exampleUrl = /REDIS_URL=(\S+)/.exec(readme.slice(readme.indexOf('```bash\nNS=')))?.[1] ?? '';
    expect(exampleUrl).toMatch(/^rediss:\/\//);
    if (redis.sentinel.enabled) {
      // The Sentinels name the primary as it announces itself (by name, useHostnames), and the client checks that name.
      expect(redis.useHostnames).toBe(true);
      for (let i = 0; i < redis.replica.replicaCount; i++) {
        const host = `platform-redis-node-${i}.platform-redis-headless.${namespace}.svc.cluster.local`;
        expect(['redis', host, covers(redisCertificate, host)]).toEqual(['redis', host, true]);
      }
      // The clients ask the Sentinels over TLS too (connectRedis gives ioredis sentinelTLS with a rediss://
      // URL), at the chart's Sentinel port, which takes TLS only, and check each name they connect to.
      const connection = readFileSync('libs/service-core/src/redis/redis-connection.ts', 'utf8');
      expect(['sentinelTLS', 'sentinelPassword'].filter((option) => !connection.includes(`${option}:`))).toEqual([]);
      expect(redis.sentinel.containerPorts?.sentinel ?? SENTINEL_PORT).toBe(SENTINEL_PORT);
      expect(JSON.stringify(redis.sentinel.preExecCmds ?? [])).not.toContain('--port');
      expect(redis.networkPolicy?.extraIngress ?? []).toEqual([]);
      for (const sentinel of config.REDIS_SENTINELS.split(',')) {
        const host = sentinel.slice(0, sentinel.lastIndexOf(':'));
        expect(['redis sentinel', host, covers(redisCertificate, host)]).toEqual(['redis sentinel', host, true]);
      }
    } else {
      const host = new URL(exampleUrl).hostname;
      expect(['redis', host, covers(redisCertificate, host)]).toEqual(['redis', host, true]);
    }

    // Each pod: tls:// servers wherever NATS_URL is given; the CA file where the service connects (NATS
    // where its module does, Redis wherever it has a REDIS_URL), mounted as ca.crt alone from the server's
    // Secret; never the CA's own Secret, never a server's key.
    const usesNats = (app: string) => readFileSync(`apps/${app}/src/${app}.module.ts`, 'utf8').includes('NatsModule.');
    for (const workload of workloads()) {
      const name = workload.metadata.name;
      const given = settings(workload);
      for (const volume of (workload.spec.template.spec.volumes as Array<Record<string, any>>).filter((candidate) => candidate.secret)) {
        const { secretName, items } = volume.secret as { secretName: string; items?: Array<{ key: string }> };
        expect([name, secretName === ca.spec.secretName]).toEqual([name, false]);
        if ([natsSecret, redisSecret].includes(secretName)) expect([name, secretName, items?.map((item) => item.key)]).toEqual([name, secretName, ['ca.crt']]);
      }
      const servers = given.get('NATS_URL')?.value?.split(',') ?? [];
      expect([name, servers.filter((server) => !server.trim().startsWith('tls://'))]).toEqual([name, []]);
      const connectsToNats = workload.kind === 'Deployment' && usesNats(appOf(workload));
      expect([name, 'NATS_CA_FILE', caFileSecret(workload, given.get('NATS_CA_FILE')?.value)]).toEqual([name, 'NATS_CA_FILE', connectsToNats ? natsSecret : undefined]);
      expect([name, 'REDIS_CA_FILE', caFileSecret(workload, given.get('REDIS_CA_FILE')?.value)]).toEqual([name, 'REDIS_CA_FILE', given.has('REDIS_URL') ? redisSecret : undefined]);
    }
  });

  it('keeps every database connection under PostgreSQL’s max_connections, with every autoscaler at its maximum', () => {
    let connections = 0;
    for (const deployment of deployments().filter((candidate) => settings(candidate).has('DATABASE_URL'))) {
      const numbers = effective(deployment);
      connections += named('HorizontalPodAutoscaler', deployment.metadata.name)!.spec.maxReplicas * Number(numbers.DATABASE_POOL_SIZE) * Number(numbers.SERVICE_PROCESSES);
    }
    connections += of('Job').length * 2;
    // PostgreSQL keeps 3 of max_connections for superusers (the operator's own connections).
    expect(connections).toBeLessThan(Number(environment.postgres.spec.postgresql.parameters.max_connections) - 3);
  });

  it('lets each pod make only the connections it needs, and take only its HTTP port', () => {
    const policies = of('NetworkPolicy');
    const check = (workload: K8sObject, direction: 'Ingress' | 'Egress', peer: Peer, port: number | string, protocol = 'TCP') =>
      allowed(policies, direction, workload.spec.template.metadata.labels, peer, port, protocol, workload.spec.template.spec.containers[0]);
    const publicAddress = { ip: '8.8.8.8' };
    for (const workload of workloads()) {
      const name = workload.metadata.name;
      const labels = workload.spec.template.metadata.labels;
      for (const direction of ['Ingress', 'Egress'])
        expect([name, direction, policies.some((policy) => matches(policy.spec.podSelector.matchLabels ?? {}, labels, policy.spec.podSelector.matchExpressions) && policy.spec.policyTypes.includes(direction))]).toEqual([name, direction, true]);
      expect([name, 'dns', check(workload, 'Egress', { ip: '10.96.0.10' }, 53, 'UDP')]).toEqual([name, 'dns', true]);
      expect([name, 'debugger', check(workload, 'Ingress', { ip: '10.1.2.3' }, 9229)]).toEqual([name, 'debugger', false]);
      expect([name, 'metadata', check(workload, 'Egress', { ip: '169.254.169.254' }, 80)]).toEqual([name, 'metadata', false]);
      const given = settings(workload);
      if (given.has('DATABASE_URL')) expect([name, 'postgres', check(workload, 'Egress', { labels: POSTGRES_POD }, 5432)]).toEqual([name, 'postgres', true]);
      if (workload.kind === 'Job') {
        expect([name, check(workload, 'Ingress', { ip: '10.1.2.3' }, 3000), check(workload, 'Egress', { labels: NATS_POD }, 4222)]).toEqual([name, false, false]);
        continue;
      }
      const app = appOf(workload);
      expect([name, 'http in', check(workload, 'Ingress', { ip: '10.1.2.3' }, 'http')]).toEqual([name, 'http in', true]);
      if (given.has('NATS_NKEY_SEED')) expect([name, 'nats', check(workload, 'Egress', { labels: NATS_POD }, 4222)]).toEqual([name, 'nats', true]);
      if (given.has('REDIS_URL'))
        for (const port of [6379, ...(environment.redis.sentinel.enabled ? [SENTINEL_PORT] : [])])
          expect([name, port, check(workload, 'Egress', { labels: REDIS_POD }, port)]).toEqual([name, port, true]);
      const callsIntegrators = ['contact-directory', 'webhook-dispatcher'].includes(app);
      expect([name, 'public', check(workload, 'Egress', publicAddress, 8443)]).toEqual([name, 'public', callsIntegrators]);
      expect([name, 'https', check(workload, 'Egress', publicAddress, 443)]).toEqual([name, 'https', callsIntegrators || app === 'notification-service']);
      expect([name, 'private', check(workload, 'Egress', { ip: '10.20.30.40' }, 80)]).toEqual([name, 'private', false]);
      if (environment.apps.includes('example-integrator') && callsIntegrators)
        expect([name, check(workload, 'Egress', { labels: named('Deployment', 'example-integrator')!.spec.template.metadata.labels }, 3004)]).toEqual([name, true]);
    }
  });

  it('lets the portal reach each service it forwards to, at the address its settings name, and no data store but Redis', () => {
    const policies = of('NetworkPolicy');
    const portal = named('Deployment', 'portal')!;
    const portalPod = { labels: portal.spec.template.metadata.labels as Record<string, string> };
    const given = plain(portal);
    for (const [app, setting] of Object.entries(PORTAL_UPSTREAMS)) {
      const upstream = named('Deployment', app)!;
      const port = upstream.spec.template.spec.containers[0].ports.find((candidate: { name: string }) => candidate.name === 'http').containerPort as number;
      // The Service's name and port, as the Deployment serves them.
      expect([setting, given[setting]]).toEqual([setting, `http://${named('Service', app)!.metadata.name}:${named('Service', app)!.spec.ports[0].port}`]);
      expect(named('Service', app)!.spec.ports[0].port).toBe(port);
      const out = allowed(policies, 'Egress', portalPod.labels, { labels: upstream.spec.template.metadata.labels }, port, 'TCP', portal.spec.template.spec.containers[0]);
      const into = allowed(policies, 'Ingress', upstream.spec.template.metadata.labels, portalPod, 'http', 'TCP', upstream.spec.template.spec.containers[0]);
      expect([app, out, into]).toEqual([app, true, true]);
    }
    const container = portal.spec.template.spec.containers[0];
    expect([
      allowed(policies, 'Egress', portalPod.labels, { labels: POSTGRES_POD }, 5432, 'TCP', container),
      allowed(policies, 'Egress', portalPod.labels, { labels: NATS_POD }, 4222, 'TCP', container),
    ]).toEqual([false, false]);
    expect([...settings(portal).keys()].filter((name) => ['DATABASE_URL', 'NATS_NKEY_SEED'].includes(name))).toEqual([]);
  });

  it('gives the portal and notification-service’s sign-in links one address, published over https in production', () => {
    const portalUrl = plain(named('Deployment', 'portal')!).PORTAL_URL;
    expect(plain(named('Deployment', 'notification-service')!).PORTAL_URL).toBe(portalUrl);
    const ingresses = of('Ingress');
    if (environment.name !== 'production') {
      expect(ingresses).toEqual([]);
      return;
    }
    const { hostname, protocol } = new URL(portalUrl);
    expect(protocol).toBe('https:');
    expect(ingresses.map((ingress) => ingress.metadata.name)).toEqual(['portal']);
    const [ingress] = ingresses;
    expect(ingress.spec.tls).toEqual([{ hosts: [hostname], secretName: expect.any(String) }]);
    expect(ingress.spec.rules).toEqual([
      { host: hostname, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'portal', port: { name: named('Service', 'portal')!.spec.ports[0].name } } } }] } },
    ]);
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    expect(readme).toContain(`| \`${ingress.spec.tls[0].secretName}\``);
  });

  if (environment.name === 'production') {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => {
      await database?.drop();
    });

    it('runs each migrations Job’s command, with only the Job’s settings, to an up-to-date schema', () => {
      for (const job of of('Job')) {
        const container = job.spec.template.spec.containers[0];
        // The test's database, which has no TLS: the operator's CA is not there either.
        const env = { ...plain(job), DATABASE_URL: database.url, DATABASE_CA_FILE: '' };
        expect(Object.keys(env).sort()).toEqual([...settings(job).keys()].sort());
        const run = spawnSync(container.command[0] === 'node' ? process.execPath : container.command[0], container.command.slice(1), { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });
        expect([job.metadata.name, run.status, run.stderr]).toEqual([job.metadata.name, 0, '']);
        expect(run.stdout).toContain('schema is up to date');
      }
    });

    it('leaves a migrations table in each service’s schema', async () => {
      const tables = await queryDatabase<{ table_schema: string }>(database.url, "SELECT table_schema FROM information_schema.tables WHERE table_name = 'migrations' ORDER BY 1");
      expect(tables.map((row) => row.table_schema)).toEqual(['directory', 'dispatcher', 'notifications', 'offers']);
    });
  }
});

interface Setting {
  value?: string;
  secret?: string;
  key?: string;
  optional?: boolean;
}

/** The environment a container gets: envFrom ConfigMaps in order, then env (which wins). */
function settingsOf(container: Record<string, any>, objects: K8sObject[]): Map<string, Setting> {
  const result = new Map<string, Setting>();
  const configMap = (name: string) => {
    const found = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);
    if (!found) throw new Error(`ConfigMap ${name} is not in the overlay`);
    return found.data as Record<string, string>;
  };
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) throw new Error(`${container.name}: secrets are given by key (env), never whole (envFrom)`);
    for (const [name, value] of Object.entries(configMap(source.configMapRef.name))) result.set(name, { value });
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (from?.secretKeyRef) result.set(variable.name, { secret: from.secretKeyRef.name, key: from.secretKeyRef.key, optional: from.secretKeyRef.optional ?? false });
    else if (from?.configMapKeyRef) result.set(variable.name, { value: configMap(from.configMapKeyRef.name)[from.configMapKeyRef.key] });
    else if (variable.value !== undefined) result.set(variable.name, { value: variable.value });
    else throw new Error(`${container.name}: ${variable.name} has a source this test does not read`);
  }
  return result;
}

/**
 * The Secret a pod's CA file comes from, when it is mounted there as that Secret's `ca.crt` alone;
 * otherwise a text saying it is not (undefined when no file is named).
 */
function caFileSecret(workload: K8sObject, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  const mount = workload.spec.template.spec.containers[0].volumeMounts.find((candidate: { mountPath: string }) => file.startsWith(`${candidate.mountPath}/`));
  const volume = workload.spec.template.spec.volumes.find((candidate: { name: string }) => candidate.name === mount?.name);
  const exact = JSON.stringify(volume?.secret?.items) === JSON.stringify([{ key: 'ca.crt', path: file.slice((mount?.mountPath.length ?? 0) + 1) }]);
  return exact ? (volume.secret.secretName as string) : `${file}: not ca.crt alone from a Secret`;
}

function configMapName(deployment: K8sObject, base: string): string {
  const ref = deployment.spec.template.spec.containers[0].envFrom.find((source: { configMapRef: { name: string } }) => source.configMapRef.name.startsWith(`${base}-`));
  return ref.configMapRef.name;
}

function matches(selector: Record<string, string>, labels: Record<string, string>, expressions: Array<{ key: string; operator: string; values: string[] }> = []): boolean {
  return (
    Object.entries(selector).every(([key, value]) => labels[key] === value) &&
    expressions.every((expression) => {
      if (expression.operator === 'In') return expression.values.includes(labels[expression.key]);
      if (expression.operator === 'NotIn') return !expression.values.includes(labels[expression.key]);
      throw new Error(`selector operator ${expression.operator} is not read by this test`);
    })
  );
}

interface Peer {
  labels?: Record<string, string>;
  ip?: string;
}

/** NetworkPolicy semantics for pods of one namespace: isolated in a direction once a policy of that direction selects the pod. */
function allowed(policies: K8sObject[], direction: 'Ingress' | 'Egress', podLabels: Record<string, string>, peer: Peer, port: number | string, protocol: string, container: Record<string, any>): boolean {
  const selecting = policies.filter((policy) => policy.spec.policyTypes.includes(direction) && matches(policy.spec.podSelector.matchLabels ?? {}, podLabels, policy.spec.podSelector.matchExpressions));
  if (selecting.length === 0) return true;
  const portNumber = typeof port === 'number' ? port : container.ports.find((candidate: { name: string }) => candidate.name === port)?.containerPort;
  const portMatches = (rulePort: { port?: number | string; protocol?: string }) =>
    (rulePort.protocol ?? 'TCP') === protocol &&
    (rulePort.port === undefined || rulePort.port === port || rulePort.port === portNumber || (direction === 'Ingress' && typeof rulePort.port === 'string' && container.ports.find((candidate: { name: string }) => candidate.name === rulePort.port)?.containerPort === portNumber));
  const peerMatches = (rulePeer: { podSelector?: { matchLabels?: Record<string, string> }; ipBlock?: { cidr: string; except?: string[] }; namespaceSelector?: unknown }) => {
    if (rulePeer.namespaceSelector) throw new Error('namespaceSelector is not read by this test');
    if (rulePeer.podSelector) return peer.labels !== undefined && matches(rulePeer.podSelector.matchLabels ?? {}, peer.labels);
    if (rulePeer.ipBlock) return peer.ip !== undefined && inCidr(peer.ip, rulePeer.ipBlock.cidr) && !(rulePeer.ipBlock.except ?? []).some((cidr) => inCidr(peer.ip!, cidr));
    return false;
  };
  return selecting.some((policy) =>
    (policy.spec[direction === 'Ingress' ? 'ingress' : 'egress'] ?? []).some((rule: Record<string, any>) => {
      const peers = rule[direction === 'Ingress' ? 'from' : 'to'];
      return (rule.ports === undefined || rule.ports.some(portMatches)) && (peers === undefined || peers.some(peerMatches));
    }),
  );
}

function inCidr(ip: string, cidr: string): boolean {
  if (cidr.includes(':')) return false;
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  const toNumber = (address: string) => address.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
  return Math.floor(toNumber(ip) / size) === Math.floor(toNumber(base) / size);
}

/** Helm's values merge: maps merge, anything else is replaced. */
function mergeValues(base: unknown, overlay: unknown): unknown {
  if (typeof base !== 'object' || base === null || Array.isArray(base) || typeof overlay !== 'object' || overlay === null || Array.isArray(overlay)) return overlay;
  const merged: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(overlay as Record<string, unknown>)) merged[key] = key in merged ? mergeValues(merged[key], value) : value;
  return merged;
}
