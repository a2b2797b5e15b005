import { declareSettings, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** Polling of a project's events. */
export const pollingSettings = declareSettings({
  /**
   * How long after it is stored an event is served (ms). The fan-out's write of a batch either lands within it or
   * fails and is written again, so a consumer past a moment never misses an event stored before it.
   */
  POLL_SETTLE_MS: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(60_000)), 5_000),
  /** Deadline of the fan-out's write of a batch's events to the log (ms): below `POLL_SETTLE_MS`. */
  POLL_APPEND_TIMEOUT_MS: z._default(positiveInt(60_000), 3_000),
});
