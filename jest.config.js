// Jest runs in native ESM mode (NestJS 12 ships as ESM): `node --experimental-vm-modules`.
// TypeScript is compiled by swc with the same .swcrc as the build, so tests run the code we ship.
import { readFileSync } from 'node:fs';

const swcrc = JSON.parse(readFileSync(new URL('./.swcrc', import.meta.url), 'utf8'));
delete swcrc.$schema;
swcrc.jsc.baseUrl = new URL('.', import.meta.url).pathname;
swcrc.module = { type: 'es6' };

/** Maps `@availability/x` to the lib's source and strips `.js` from relative ESM imports of .ts files. */
const moduleNameMapper = {
  '^@availability/offers-api/sql$': '<rootDir>/apps/offers-api/src/sql.ts',
  '^@availability/([a-z-]+)$': '<rootDir>/libs/$1/src/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcrc] },
  moduleNameMapper,
  testMatch: ['<rootDir>/{apps,libs,tools}/*/{src,test}/**/*.{spec,test}.ts'],
  // .stryker-tmp holds the copies of the repository mutation testing works in (stryker.config.mjs).
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.stryker-tmp/'],
  testTimeout: 120_000,
  // A worker reads the end message only once it is idle; on a busy machine that came more than Jest's
  // default 500 ms after it was sent (then "failed to exit gracefully"), and once read it exited within
  // 20 ms. A handle left open holds a worker far longer and is still reported.
  workerGracefulExitTimeout: 10_000,
  setupFiles: ['reflect-metadata'],
};
