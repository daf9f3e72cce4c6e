/** One jest run for the whole monorepo: pure tests and component tests against real Kafka and PostgreSQL. */
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

module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  transform: {
    '^.+\\.ts$': ['@swc/jest', swc],
    // ESM-only dependencies (Node 20 requires them natively; jest's module system does not).
    '/node_modules/content-disposition/.+\\.js$': [
      '@swc/jest',
      { jsc: { target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: {
    '^@payments/apps/(.*)$': '<rootDir>/apps/$1/src/index.ts',
    '^@payments/providers/(.*)$': '<rootDir>/libs/providers/$1/src/index.ts',
    '^@payments/(.*)$': '<rootDir>/libs/$1/src/index.ts',
  },
  testMatch: [
    '<rootDir>/tests/**/*.spec.ts',
    '<rootDir>/apps/**/*.spec.ts',
    '<rootDir>/libs/**/*.spec.ts',
    '<rootDir>/tools/**/*.spec.ts',
  ],
  globalSetup: '<rootDir>/libs/testing/src/global-setup.js',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.js',
  testTimeout: 60000,
  // Component tests start services against one broker; two workers fit two cores.
  maxWorkers: 2,
};
