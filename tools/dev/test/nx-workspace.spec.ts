import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';

/**
 * The workspace as Nx sees it: which projects a change affects, what one service's image is built
 * from, and the module-boundary rule, which needs Nx's project graph to run at all.
 */
const root = process.cwd();
const SERVICES = ['contact-directory', 'example-integrator', 'notification-service', 'offers-api', 'portal', 'webhook-dispatcher'];
// No daemon: each call computes the graph itself, as CI does.
const env = { ...process.env, NX_DAEMON: 'false', NX_TUI: 'false' };

function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { cwd: root, env, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

const nxBin = join(root, 'node_modules/nx', (JSON.parse(readFileSync(join(root, 'node_modules/nx/package.json'), 'utf8')) as { bin: { nx: string } }).bin.nx);
const nx = (...args: string[]) => run(process.execPath, [nxBin, ...args]);

/** The projects whose `test` target `nx affected -t test` runs when only `file` changed. */
function affectedTests(file: string): string[] {
  return JSON.parse(nx('show', 'projects', '--affected', `--files=${file}`, '--withTarget=test', '--json')) as string[];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe('nx affected', () => {
  it.each(SERVICES)("runs the tests of a changed service (%s) and e2e's, and no other service's", (service) => {
    const projects = affectedTests(`apps/${service}/src/main.ts`);
    expect(projects).toEqual(expect.arrayContaining([service, 'e2e']));
    for (const other of SERVICES.filter((name) => name !== service)) expect(projects).not.toContain(other);
  });

  it('runs the tests of the libs and tools that start the changed service as a process (implicit dependencies)', () => {
    expect(affectedTests('apps/offers-api/src/main.ts')).toContain('sender-client');
    expect(affectedTests('apps/contact-directory/src/main.ts')).toEqual(expect.arrayContaining(['sender-client', 'cli']));
  });
});

describe('image input (nx run <app>:prune)', () => {
  beforeAll(() => {
    // From the build `npm test` has made: building again would rewrite dist/ while the suites running
    // beside this one start services from it.
    nx('run-many', '-t', 'prune', '-p', 'offers-api', 'notification-service', 'portal', '--excludeTaskDependencies', '--output-style=static');
  });
  const input = (app: string) => join(root, 'dist/images', app);
  const manifest = (app: string) => JSON.parse(readFileSync(join(input(app), 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies?: object };

  it("holds the service's compiled code and the libs it runs, and no other service's", () => {
    const files = filesUnder(input('offers-api'));
    expect(files).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'dist/apps/offers-api/src/main.js', 'dist/apps/offers-api/src/migrate.js']));
    const projects = new Set(files.filter((file) => file.startsWith('dist/')).map((file) => file.split('/').slice(1, 3).join('/')));
    // The libs offers-api's own code imports, through the project graph; libs/testing serves only its tests.
    expect([...projects]).toEqual(expect.arrayContaining(['apps/offers-api', 'libs/service-core', 'libs/contracts', 'libs/messaging']));
    expect([...projects].filter((project) => !project.startsWith('libs/'))).toEqual(['apps/offers-api']);
    expect(projects).not.toContain('libs/testing');
    expect(files.filter((file) => /\.(spec|test)\.js$|\/test\//.test(file))).toEqual([]);
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      const code = readFileSync(join(input('offers-api'), file), 'utf8');
      for (const other of SERVICES.filter((service) => service !== 'offers-api')) expect(code).not.toContain(`apps/${other}/`);
    }
  });

  it("holds the portal's built web application, which its code reads from disk and never imports, and no other service's code", () => {
    const files = filesUnder(input('portal'));
    expect(files).toEqual(expect.arrayContaining(['dist/apps/portal/src/main.js', 'dist/apps/portal/web/index.html']));
    // Every file of the build, as the service serves it from next to its code.
    const built = filesUnder(join(root, 'dist/apps/portal/web')).map((file) => `dist/apps/portal/web/${file}`);
    expect(built.some((file) => file.startsWith('dist/apps/portal/web/assets/'))).toBe(true);
    expect(files).toEqual(expect.arrayContaining(built));
    const projects = new Set(files.filter((file) => file.startsWith('dist/')).map((file) => file.split('/').slice(1, 3).join('/')));
    expect([...projects].filter((project) => !project.startsWith('libs/'))).toEqual(['apps/portal']);
    expect(projects).not.toContain('libs/testing');
    // Neither its page sources nor its specs: only what the build made of them.
    expect(files.filter((file) => /\.tsx?$|\.(spec|test)\.js$|\/test\//.test(file))).toEqual([]);
    for (const file of files.filter((name) => name.startsWith('dist/apps/portal/src/') && name.endsWith('.js'))) {
      const code = readFileSync(join(input('portal'), file), 'utf8');
      for (const other of SERVICES.filter((service) => service !== 'portal')) expect(code).not.toContain(`apps/${other}/`);
    }
    // The pages are bundled by the build: the image installs no browser packages.
    const { dependencies } = manifest('portal');
    expect(Object.keys(dependencies)).toEqual(expect.arrayContaining(['@fastify/static', '@fastify/cookie']));
    for (const unused of ['react', 'react-dom', 'vite', 'bullmq', 'firebase-admin']) expect(dependencies).not.toHaveProperty(unused);
  });

  it('lists exactly the npm packages its code imports, at the versions of the root lockfile', () => {
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const { dependencies, devDependencies } = manifest('offers-api');
    expect(devDependencies).toBeUndefined();
    expect(Object.keys(dependencies)).toEqual(expect.arrayContaining(['@nestjs/core', '@nats-io/transport-node', 'typeorm', 'pg', 'class-validator']));
    for (const [name, version] of Object.entries(dependencies)) expect(rootManifest.dependencies[name]).toBe(version);
    // notification-service's push, e-mail and job queue; development tools.
    for (const unused of ['firebase-admin', 'nodemailer', 'bullmq', '@bull-board/api', 'jest', 'nx', '@swc/core']) expect(dependencies).not.toHaveProperty(unused);
    expect(Object.keys(manifest('notification-service').dependencies)).toEqual(expect.arrayContaining(['firebase-admin', 'nodemailer', 'bullmq']));
  });

  it('has a lockfile npm ci accepts as it is (checked offline, nothing downloaded)', () => {
    const lock = JSON.parse(readFileSync(join(input('offers-api'), 'package-lock.json'), 'utf8')) as { packages: Record<string, { dependencies?: object }> };
    expect(lock.packages[''].dependencies).toEqual(manifest('offers-api').dependencies);
    expect(lock.packages).toHaveProperty(['node_modules/typeorm']);
    expect(lock.packages).not.toHaveProperty(['node_modules/firebase-admin']);
    expect(lock.packages).not.toHaveProperty(['node_modules/jest']);
    const scratch = mkdtempSync(join(tmpdir(), 'ap-image-input-'));
    try {
      cpSync(join(input('offers-api'), 'package.json'), join(scratch, 'package.json'));
      cpSync(join(input('offers-api'), 'package-lock.json'), join(scratch, 'package-lock.json'));
      // A lockfile out of step with the manifest makes npm resolve what is missing, which --offline refuses.
      const ci = spawnSync('npm', ['ci', '--omit=dev', '--dry-run', '--offline', '--ignore-scripts', '--cache', join(scratch, '.npm')], {
        cwd: scratch,
        env,
        encoding: 'utf8',
      });
      expect({ status: ci.status, stderr: ci.stderr.split('\n').filter((line) => line.includes('npm error')) }).toEqual({ status: 0, stderr: [] });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('module boundaries', () => {
  it('are enforced by lint with the project graph (the rule is not skipped)', () => {
    nx('show', 'projects');
    const eslint = spawnSync(
      process.execPath,
      [join(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', 'apps/offers-api/src/boundary-probe.ts'],
      { cwd: root, env, encoding: 'utf8', input: "import { startWebhookDispatcher } from '../../webhook-dispatcher/src/main.js';\nexport const probe = startWebhookDispatcher;\n" },
    );
    expect(eslint.stdout).not.toContain('No cached ProjectGraph');
    expect(eslint.stdout).toContain('@nx/enforce-module-boundaries');
    expect(eslint.status).toBe(1);
  });
});
