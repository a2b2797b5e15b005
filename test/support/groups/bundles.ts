import { groupSetup } from '../global-service.ts';
import { E2E_RETRY_SCHEDULE } from './e2e.ts';

/**
 * The `bundles` group: its e2e files (vitest.config.ts), against the functions as `cdk deploy` uploads them
 * (`LOCAL_FUNCTIONS=bundles`, each function on a thread with the template's environment). When it stops, every AWS
 * call the functions made is checked against their roles in the synthesized stack. The first build of the bundles
 * (a fresh clone, changed sources) happens in the service's own boot, which starts with the run (`eager`), beside the
 * first files of the other projects.
 */
export default groupSetup(
  {
    functions: 'bundles',
    threads: true,
    env: {
      WEBHOOK_RETRY_SCHEDULE: E2E_RETRY_SCHEDULE,
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '15000',
      SEND_PROVIDER_TIMEOUT_MS: '2000',
      // knowledge.test.ts searches hundreds of times with one token.
      BOT_RATE_LIMIT_PER_MINUTE: '100000',
    },
  },
  undefined,
  { eager: true },
);
