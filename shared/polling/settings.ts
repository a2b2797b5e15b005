import { declareSettings, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** Polling of a project's events. */
export const pollingSettings = declareSettings({
  /**
   * How long after it is stored an event is served (ms). The fan-out's write of a batch either lands within it or
   * fails and is written again, so a consumer past a moment never misses an event stored before it.
   */
  POLL_SETTLE_MS: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(60_000)), 5_000),
  /**
   * Requests a second one poller may make (a bucket of one second's worth): at 250 events a page, 50 keep up with
   * the most events a project may report (10,000 a second), and a runaway consumer costs its poll log no more.
   */
  POLL_RATE_LIMIT_PER_SECOND: z._default(positiveInt(10_000), 50),
  /** Deadline of the fan-out's write of a batch's events to the log (ms): below `POLL_SETTLE_MS`. */
  POLL_APPEND_TIMEOUT_MS: z._default(positiveInt(60_000), 3_000),
});
