import { defineConfig } from 'vitest/config';

/**
 * E2e files the `bundles` project runs again with LOCAL_FUNCTIONS=bundles (the functions from their deploy assets,
 * with the template's environment; each file's AWS calls are checked against the roles when its service closes).
 * Together with test/e2e/bundles-mode.test.ts they invoke every function at least once: health, admin (health),
 * completion (completion), send, fanout, deliver (webhooks), ingest, search (knowledge), legacy-send and the
 * fallback (send), extract and extract-uploads (extract), credit-sweeper (its schedule, in every file), models and
 * chat-completions, streamed (bundles-mode.test.ts); message-status (message-status), inbound-twilio,
 * inbound-whatsapp and the inbound worker (ingress).
 */
const bundlesModeFiles = [
  'test/e2e/health.test.ts',
  'test/e2e/completion.test.ts',
  'test/e2e/webhooks.test.ts',
  'test/e2e/knowledge.test.ts',
  'test/e2e/send.test.ts',
  'test/e2e/extract.test.ts',
  'test/e2e/message-status.test.ts',
  'test/e2e/ingress.test.ts',
];

export default defineConfig({
  test: {
    // Each file runs in its own process: the local service keeps per-process state (settings read once per
    // "cold start", one dynalite per service), as each Lambda function does.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Logs and EMF metric lines off: the tests that read them turn them on for their own service.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'sources', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'bundles',
          include: bundlesModeFiles,
          env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true', LOCAL_FUNCTIONS: 'bundles' },
          globalSetup: ['test/support/bundles-global-setup.ts'],
        },
      },
    ],
  },
});
