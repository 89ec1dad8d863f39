#!/usr/bin/env node
// The operator CLI (`npm run -s cli -- …`): builds the project first only when a source changed
// since the last build, with the build's output on stderr, so stdout holds the command's JSON alone.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { needsBuild, recordBuild } from './build-state.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
if (needsBuild(root)) {
  process.stderr.write('building (sources changed since the last build)…\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const startedAt = Date.now();
  const build = spawnSync(npm, ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
  if (build.status !== 0) process.exit(build.status ?? 1);
  recordBuild(root, startedAt);
}
const cli = spawnSync(process.execPath, [resolve(root, 'dist/tools/cli/src/main.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(cli.status ?? 1);
