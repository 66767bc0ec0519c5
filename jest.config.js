// Three projects: pure unit tests, workflow tests on the time-skipping server, and API
// tests over real HTTP against a stack (PostgreSQL, Temporal dev server, MinIO, worker)
// that test/support/global-setup.ts starts on free ports.
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };
// Projects whose code talks to PostgreSQL: overlapping queries on one client fail the file, and
// the passwords they store are hashed at the tests' lower cost.
const database = { setupFilesAfterEnv: ['<rootDir>/test/support/no-overlapping-queries.ts', '<rootDir>/test/support/password-cost-setup.ts'] };
module.exports = {
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, ...database, displayName: 'workflows', testMatch: ['<rootDir>/test/workflows/**/*.test.ts'] },
    {
      ...common,
      ...database,
      displayName: 'api',
      testMatch: ['<rootDir>/test/api/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
