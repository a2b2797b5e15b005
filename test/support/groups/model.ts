import { groupSetup } from '../global-service.ts';
import { startModelDouble } from '../model-double.ts';
import { E2E_RETRY_SCHEDULE } from './e2e.ts';

/**
 * The `model` group: a deployment whose model is an OpenAI-compatible server (`MODEL_PROVIDER=openai`), here a double
 * whose behaviour each request chooses with a directive in its prompt (test/support/model-double.ts).
 */
export default groupSetup(
  {
    env: {
      MODEL_PROVIDER: 'openai',
      OPENAI_API_KEY: 'sk-test-key',
      OPENAI_MODEL: 'test-model',
      WEBHOOK_RETRY_SCHEDULE: E2E_RETRY_SCHEDULE,
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
