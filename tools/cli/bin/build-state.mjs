import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the build compiles (`npm run build`): TypeScript under these folders, and the compiler's settings. */
const SOURCE_ROOTS = ['apps', 'libs', 'tools'];
const SETTINGS = ['.swcrc', 'package.json', 'tsconfig.base.json'];
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
 * True when `dist` is missing the built CLI or older than a source file or a compiler setting, so the
 * CLI rebuilds only when something changed. The built CLI's own file stands for the build's time: the
 * build writes every file of `dist` each time.
 */
export function needsBuild(root) {
  let builtAt;
  try {
    builtAt = statSync(join(root, 'dist/tools/cli/src/main.js')).mtimeMs;
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
