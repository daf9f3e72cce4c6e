/**
 * Two jest projects. `unit`: tests that need neither Kafka nor PostgreSQL (the pure libraries and
 * every other self-contained test); they start nothing and run in seconds. `component`: tests that
 * run against the real broker and database — everything under tests/ and every file named
 * `*.component.spec.ts` — with a global set-up that makes sure both are there.
 * `npx jest --selectProjects unit` runs the first alone, without a broker.
 */
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

const shared = {
  // jest's node environment, holding the services' log lines back unless a test fails (decision 346).
  testEnvironment: '<rootDir>/libs/testing/src/test-environment.js',
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': ['@swc/jest', swc],
    // ESM-only dependencies (Node 20 requires them natively; jest's module system does not).
    '/node_modules/(content-disposition|@nestjs/terminus)/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(content-disposition|@nestjs/terminus)/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@payments/apps/(.*)$': '<rootDir>/apps/$1/src/index.ts',
    '^@payments/providers/(.*)$': '<rootDir>/libs/providers/$1/src/index.ts',
    '^@payments/(.*)$': '<rootDir>/libs/$1/src/index.ts',
  },
};

const everySpec = ['apps', 'libs', 'tools', 'tests'].map((dir) => `<rootDir>/${dir}/**/*.spec.ts`);

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: everySpec,
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/tests/', '\\.component\\.spec\\.ts$'],
    },
    {
      ...shared,
      displayName: 'component',
      testMatch: ['<rootDir>/tests/**/*.spec.ts', '<rootDir>/{apps,libs,tools}/**/*.component.spec.ts'],
      // tests/perf holds measurements (`npm run bench:console`), not tests: npm test leaves them out.
      testPathIgnorePatterns:
        process.env.CONSOLE_BENCH === '1' ? ['/node_modules/'] : ['/node_modules/', '<rootDir>/tests/perf/'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.js',
      // Prints how many documented operations and status codes the e2e answers exercised.
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.js',
    },
  ],
  // One line a test file and the totals; console output only from files that failed.
  reporters: ['<rootDir>/libs/testing/src/quiet-reporter.js', 'summary'],
  testTimeout: 60000,
  // Component tests start services against one broker; two workers fit two cores.
  maxWorkers: 2,
};
