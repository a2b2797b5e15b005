import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file runs in its own process: the local service keeps per-process state (settings read once per
    // "cold start", one dynalite per service), as each Lambda function does.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
  },
});
