import nx from '@nx/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const constraints = (extra = []) => [
  // Pure domain: no framework, ORM, broker or database client.
  {
    sourceTag: 'type:pure',
    onlyDependOnLibsWithTags: ['type:pure', 'type:contracts', ...extra],
    bannedExternalImports: INFRA,
  },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', ...extra], bannedExternalImports: INFRA },
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:pure', ...extra] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:pure', ...extra] },
  {
    sourceTag: 'type:testing',
    onlyDependOnLibsWithTags: ['type:infra', 'type:contracts', 'type:pure', 'type:testing'],
  },
];

const INFRA = ['@nestjs/*', 'typeorm', 'typeorm/*', 'kafkajs', 'pg', '@nestjs/microservices', '@nestjs/typeorm'];

export default tseslint.config(
  {
    ignores: [
      '**/dist',
      '**/node_modules',
      '.run/**',
      'tools/kafka/target/**',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
      // The scripts that start, test and measure the system are code like any other.
      '!tools/**/*.mjs',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: constraints(),
        },
      ],
    },
  },
  {
    // Tests and their shared set-up (*.spec-support.ts, next to the specs) may use the test
    // infrastructure (pure libraries' tests still may not import infra).
    files: ['**/*.spec.ts', '**/*.spec-support.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints: constraints(['type:testing']) },
      ],
    },
  },
  {
    // End-to-end suites compose the real services in one process; they are the only code that
    // imports apps, and nothing imports them.
    files: ['tests/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
  {
    // Pure domain logic takes `now` as an argument: no clock reads.
    files: [
      'libs/orders-domain/**/*.ts',
      'libs/methods-domain/**/*.ts',
      'libs/transfers-domain/**/*.ts',
      'libs/money/**/*.ts',
      'libs/status-codes/**/*.ts',
    ],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Pure domain code takes `now` as an argument.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Pure domain code takes `now` as an argument.',
        },
      ],
    },
  },
  {
    // Node scripts (ES modules, type-checked by tools/tsconfig.json): Node's globals, and `any`
    // where a JSDoc cast says so.
    files: ['tools/**/*.mjs'],
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
