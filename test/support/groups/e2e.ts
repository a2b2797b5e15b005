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
    // The threaded runner, as `npm start` runs it: webhooks.test.ts times healthy deliveries beside a receiver that
    // hangs (p95 under 3 s), which on one event loop shared with the gateway and the SQS stand-in went past 3 s when
    // the machine was loaded (3.4 s at a load average of 13).
    threads: true,
    env: {
      WEBHOOK_RETRY_SCHEDULE: E2E_RETRY_SCHEDULE,
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '15000',
      SEND_PROVIDER_TIMEOUT_MS: '2000',
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
);
