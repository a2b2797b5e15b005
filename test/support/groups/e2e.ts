import { groupSetup } from '../global-service.ts';
import { startModelDouble } from '../model-double.ts';

/**
 * The `e2e` group: the service as `npm start` runs it (the offline model by default), with webhook retries a few
 * hundred ms apart and a short provider timeout so failures show quickly, and an OpenAI-compatible model double a bot
 * can name (`model: "openai:<id>"`).
 */
export const E2E_RETRY_SCHEDULE = '0.2,0.2,0.2';
/** Attempts a delivery gets under {@link E2E_RETRY_SCHEDULE} before it is `failed`: one per delay, plus the first. */
export const E2E_ATTEMPTS = E2E_RETRY_SCHEDULE.split(',').length + 1;

export default groupSetup(
  {
    // The threaded runner, as `npm start` runs it. (On one event loop the group's files cost the same CPU since its
    // heaviest files moved to the `bundles` group: 39.0 s threaded, 39.0 s on one loop,
    // bench/history/2026-11-test-suite-time.md.)
    threads: true,
    env: {
      WEBHOOK_RETRY_SCHEDULE: E2E_RETRY_SCHEDULE,
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '15000',
      SEND_PROVIDER_TIMEOUT_MS: '2000',
      // A project's limits changed by PATCH reach the send function within this (test/e2e/limits.test.ts).
      PROJECT_LIMITS_CACHE_SECONDS: '2',
    },
  },
  async () => {
    const model = await startModelDouble();
    return {
      env: { OPENAI_BASE_URL: model.baseUrl },
      provide: { modelDouble: model.baseUrl },
      stop: () => model.close(),
    };
  },
  // Booted with the run: the longest file of all (volume.test.ts) is one of the group's and starts at once, and a
  // boot asked for by its first hook began ~7 s later (run 61, bench/history/2026-12-suite-time-final20.md).
  { eager: true },
);
