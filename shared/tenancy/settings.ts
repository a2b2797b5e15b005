import { declareSettings, positiveInt } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';
import { PORTAL_CODE_SECONDS } from './portal.ts';

/** Project keys and portal sessions. */
export const tenancySettings = declareSettings({
  /**
   * A project key's `lastUsedAt` is written at most once in this many seconds, so a script's burst of requests costs
   * one write, not one per request.
   */
  MANAGEMENT_KEY_TOUCH_SECONDS: z._default(positiveInt(86_400), 60),
  /**
   * How long a portal link's code may be exchanged: 5 minutes, or less where a deployment wants links to go stale
   * sooner (never more: a link travels through the operator's pages and must not stay usable for long).
   */
  PORTAL_CODE_SECONDS: z._default(positiveInt(PORTAL_CODE_SECONDS), PORTAL_CODE_SECONDS),
});

export type TenancySettings = ReturnType<typeof tenancySettings.read>;
