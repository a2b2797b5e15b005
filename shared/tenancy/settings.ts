import { declareSettings, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** Project keys and portal sessions. */
export const tenancySettings = declareSettings({
  /**
   * A project key's `lastUsedAt` is written at most once in this many seconds, so a script's burst of requests costs
   * one write, not one per request.
   */
  MANAGEMENT_KEY_TOUCH_SECONDS: z._default(positiveInt(86_400), 60),
});

export type TenancySettings = ReturnType<typeof tenancySettings.read>;
