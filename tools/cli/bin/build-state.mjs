import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the build compiles (`npm run build`): TypeScript under these folders, and the settings of the build and compiler. */
const SOURCE_ROOTS = ['apps', 'libs', 'tools'];
const SETTINGS = ['.swcrc', 'nx.json', 'package.json', 'tsconfig.base.json'];
const SKIPPED = new Set(['node_modules', 'dist', 'test', 'bench-results', '.stryker-tmp']);

function newestSource(dir, newest) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = newestSource(path, newest);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * When the last build the CLI ran had started. The build is cached per project and rewrites only what
 * changed, so no file it writes says when it last ran as a whole.
 */
const STAMP = 'dist/.cli-build';

/**
 * True when `dist` is missing the built CLI, or a source file or a compiler setting changed since the
 * last build the CLI ran, so the CLI rebuilds only when something changed.
 */
export function needsBuild(root) {
  let builtAt;
  try {
    statSync(join(root, 'dist/tools/cli/src/main.js'));
    builtAt = statSync(join(root, STAMP)).mtimeMs;
  } catch {
    return true;
  }
  let newest = 0;
  for (const name of SETTINGS) {
    try {
      newest = Math.max(newest, statSync(join(root, name)).mtimeMs);
    } catch {
      // a setting file that does not exist changes nothing
    }
  }
  for (const folder of SOURCE_ROOTS) newest = newestSource(join(root, folder), newest);
  return newest > builtAt;
}

/** Records a successful build that started at `startedAt` (ms): what changed after that still needs one. */
export function recordBuild(root, startedAt) {
  const stamp = join(root, STAMP);
  writeFileSync(stamp, '');
  utimesSync(stamp, startedAt / 1000, startedAt / 1000);
}
