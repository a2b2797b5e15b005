import { declareSettings } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** The credit sweeper's deadline (the rest of the credits' rules are the project's monthly allowance). */
export const creditsSettings = declareSettings({
  /**
   * A charge neither settled nor refunded this long after it was made belongs to a request that died: the sweeper
   * refunds it. Longer than any request can run.
   */
  CREDIT_SWEEP_AFTER_SECONDS: z._default(z.coerce.number().check(z.int(), z.gt(0)), 900),
});
