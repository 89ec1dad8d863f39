#!/usr/bin/env node
// Records every platform-specific optional dependency (e.g. @swc/core-darwin-arm64) in
// package-lock.json. npm drops the entries it cannot resolve for the machine that wrote the lock,
// and `npm ci` then rejects the lock as out of sync on every machine. An entry with just the
// version is enough: npm fetches it only where the platform matches and skips it elsewhere.
// Run after any dependency change: `npm install && npm run lockfile:complete`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const present = new Set(Object.keys(packages).map((key) => key.replace(/^.*node_modules\//, '')));
const check = process.argv.includes('--check');
const missing = [];

for (const meta of Object.values(packages)) {
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    if (present.has(name)) continue;
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) {
      console.error(`${name}@${spec}: not an exact version; add it to the lock by hand`);
      process.exitCode = 1;
      continue;
    }
    present.add(name);
    missing.push(name);
    packages[`node_modules/${name}`] = { version: spec, ...(meta.dev ? { dev: true } : {}), optional: true };
  }
}

if (check) {
  if (missing.length > 0) {
    console.error(`package-lock.json lacks ${missing.length} optional platform packages; run \`npm run lockfile:complete\``);
    process.exit(1);
  }
} else {
  lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(missing.length > 0 ? `recorded ${missing.length} optional platform packages` : 'package-lock.json is complete');
}
