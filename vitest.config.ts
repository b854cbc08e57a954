import { defineConfig } from 'vitest/config';
import { SKIP_MARK } from './test/support/requires.js';

export default defineConfig({
  test: {
    // build.ts compiles dist/; log-capture.ts collects the services' logs and fails the run if a secret the tests used is in them.
    globalSetup: ['test/support/build.ts', 'test/support/log-capture.ts'],
    include: ['test/**/*.test.ts', 'src/**/*.spec.ts'],
    // Two cores: run files in a small pool; suites that start servers isolate themselves.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The default output, plus one block saying which suites skipped and which variable enables each.
    reporters: ['default', './test/support/skip-reporter.ts'],
    // Skip reasons are printed once, together, by that reporter, not after each file.
    onConsoleLog: (log) => !log.startsWith(SKIP_MARK),
  },
});
