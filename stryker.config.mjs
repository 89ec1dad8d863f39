// Mutation testing of the pure domain modules (docs/testing.md, "Mutation testing"). Slow: not part
// of `npm test`; run it with `npm run test:mutation`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'jest.mutation.config.js', enableFindRelatedTests: true },
  // Jest runs as native ESM, as in `npm run test:jest`.
  testRunnerNodeArgs: ['--experimental-vm-modules'],
  // Stryker's jest environment records which test reaches which mutant, in ESM too: each mutant runs
  // only the tests that reach it, and (enableFindRelatedTests) only the spec files that import its module.
  coverageAnalysis: 'perTest',
  // Mutants in module-level code (patterns, tables) run every test of their module, not just the
  // covering ones; they are kept, since those tables are much of what these modules decide.
  ignoreStatic: false,
  mutate: [
    'libs/webhook-signing/src/**/*.ts',
    '!libs/webhook-signing/src/**/*.spec.ts',
    'libs/outbound-http/src/address-policy.ts',
    'apps/contact-directory/src/suggestions/suggestion-validation.ts',
    'apps/offers-api/src/offers/offer-rules.ts',
    'apps/webhook-dispatcher/src/domain/backoff.ts',
    'apps/webhook-dispatcher/src/domain/classify.ts',
    'apps/webhook-dispatcher/src/domain/retry-after.ts',
    'apps/webhook-dispatcher/src/domain/retry-policy.ts',
  ],
  // The sandbox needs the sources and configs, not build output or docs.
  ignorePatterns: ['dist', 'docs', 'bench-results', 'coverage', '.nx', 'reports'],
  checkers: [],
  concurrency: 2,
  timeoutMS: 5_000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
