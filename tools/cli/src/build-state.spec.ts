import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { needsBuild, recordBuild } from '../bin/build-state.mjs';

let root: string;

function write(path: string, secondsAgo: number): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, '');
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(full, at, at);
}

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('needsBuild', () => {
  const builtSecondsAgo = (seconds: number) => recordBuild(root, Date.now() - seconds * 1000);

  it('builds when there is no build, or a source or setting changed since the last one, and not otherwise', () => {
    root = mkdtempSync(join(tmpdir(), 'ap-build-state-'));
    write('apps/offers-api/src/main.ts', 100);
    write('libs/contracts/src/index.ts', 100);
    write('tools/cli/src/main.ts', 100);
    write('.swcrc', 100);
    expect(needsBuild(root)).toBe(true);

    write('dist/tools/cli/src/main.js', 50);
    // Built, but not by the CLI: it cannot tell whether that build saw every change.
    expect(needsBuild(root)).toBe(true);
    builtSecondsAgo(50);
    expect(needsBuild(root)).toBe(false);

    // Specs, tests and dependencies are not built: changing them needs no build.
    write('libs/contracts/src/index.spec.ts', 10);
    write('apps/offers-api/test/offers.int.spec.ts', 10);
    write('node_modules/some-package/index.ts', 10);
    expect(needsBuild(root)).toBe(false);

    write('libs/contracts/src/index.ts', 10);
    expect(needsBuild(root)).toBe(true);
    // A cached build leaves the CLI's own output as it was: the record of the build is what counts.
    builtSecondsAgo(5);
    expect(needsBuild(root)).toBe(false);
    write('.swcrc', 1);
    expect(needsBuild(root)).toBe(true);

    rmSync(join(root, 'dist/tools/cli'), { recursive: true });
    builtSecondsAgo(0);
    expect(needsBuild(root)).toBe(true);
  });
});
