import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/build.ts'],
    include: ['test/**/*.test.ts', 'src/**/*.spec.ts'],
    // Two cores: run files in a small pool; suites that start servers isolate themselves.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
