import nx from '@nx/eslint-plugin';

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/dist', '**/node_modules', '**/coverage', '.stryker-tmp', 'reports'] },
  {
    files: ['**/*.ts'],
    rules: {
      // Services deploy independently: an app may never import another app; apps and tools build on libs.
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          // The one app module a project may import: offers-api's SQL, for the benchmark's bare baseline.
          allow: ['@availability/offers-api/sql'],
          // Test-only: libs/testing runs the bus as deployed, from messaging's permissions
          // (bus-permissions.ts), and messaging's own integration tests use that harness.
          ignoredCircularDependencies: [['messaging', 'testing']],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            // Benchmarks compare a service with a bare baseline running the same SQL, so they may read an app's SQL module.
            { sourceTag: 'type:bench', onlyDependOnLibsWithTags: ['type:lib', 'type:app'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Request bodies are hostile: every check on them must be linear.
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['ArrayUnique', 'arrayUnique'],
              message: 'ArrayUnique compares every element with every other; use IdList from @availability/contracts (one linear pass).',
            },
            {
              name: '@opentelemetry/semantic-conventions/incubating',
              message:
                'The incubating entry point loads every experimental convention (about 2 MB of source in each process) and may break in minor versions; copy the names you need into @availability/service-core semconv.ts, as its README recommends.',
            },
          ],
        },
      ],
    },
  },
];
