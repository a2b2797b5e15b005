import { deploymentSettings } from '#local/bundles/bundles-mode.ts';
import { localDeployment } from '#local/bundles/local-deployment.ts';
import { groupSetup } from '../global-service.ts';
import { E2E_RETRY_SCHEDULE } from './e2e.ts';

/**
 * The `bundles` group: eight e2e files (vitest.config.ts), against the functions as `cdk deploy` uploads them
 * (`LOCAL_FUNCTIONS=bundles`, each function on a thread with the template's environment). When it stops, every AWS
 * call the functions made is checked against their roles in the synthesized stack.
 */
const setup = groupSetup({
  functions: 'bundles',
  threads: true,
  env: {
    WEBHOOK_RETRY_SCHEDULE: E2E_RETRY_SCHEDULE,
    WEBHOOK_ATTEMPT_TIMEOUT_MS: '15000',
    SEND_PROVIDER_TIMEOUT_MS: '2000',
    // knowledge.test.ts searches hundreds of times with one token.
    BOT_RATE_LIMIT_PER_MINUTE: '100000',
  },
});

export default async function bundlesSetup(project: Parameters<typeof setup>[0]) {
  // Built or found in the cache before the service starts, so its start does not pay the first build.
  localDeployment(deploymentSettings({}));
  return setup(project);
}
