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
    },
  },
];
