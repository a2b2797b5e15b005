import { declareSettings } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** The event sweep's bound (docs/durability.md). */
export const eventsSettings = declareSettings({
  /**
   * An event still marked unpublished this long after its change was written is published by the sweep: a crash
   * between a synchronous route's write and its publish leaves no queue message to retry.
   */
  EVENT_SWEEP_AFTER_SECONDS: z._default(z.coerce.number().check(z.gt(0)), 30),
});
