import { parseConfig, settingNames as kernelSettingNames } from '#shared/kernel/config.ts';
import type { AreaSettings, Env } from '#shared/kernel/settings.ts';
import { completionSettings } from '#shared/completion/index.ts';
import { creditsSettings } from '#shared/credits/index.ts';
import { eventsSettings } from '#shared/events/index.ts';
import { messagingSettings } from '#shared/messaging/index.ts';
import { modelSettings } from '#shared/model-providers/index.ts';
import { pdfSettings } from '#shared/pdf/index.ts';
import { ratelimitSettings } from '#shared/ratelimit/index.ts';
import { webhookSettings } from '#shared/webhooks/index.ts';
import { pollingSettings } from '#shared/polling/index.ts';
import { siteSettings } from '#shared/site/index.ts';
import { tenancySettings } from '#shared/tenancy/index.ts';

/**
 * Every area's settings (`shared/<area>/settings.ts`, exported by the area's face), by area. A new area with
 * settings adds one line here; test/unit/local/settings.test.ts fails until it does.
 */
export const AREA_SETTINGS: Readonly<Record<string, AreaSettings<unknown>>> = {
  completion: completionSettings,
  credits: creditsSettings,
  events: eventsSettings,
  messaging: messagingSettings,
  'model-providers': modelSettings,
  pdf: pdfSettings,
  ratelimit: ratelimitSettings,
  webhooks: webhookSettings,
  polling: pollingSettings,
  site: siteSettings,
  tenancy: tenancySettings,
};

/** Every setting's name: the kernel's and the areas'. Bundles mode passes the caller's values of these through. */
export const settingNames: readonly string[] = [
  ...kernelSettingNames,
  ...Object.values(AREA_SETTINGS).flatMap((settings) => settings.names),
];

/**
 * Checks every setting in `env` as the functions' cold starts do (the kernel's, then each area's): throws
 * `Invalid configuration: NAME: why`. `npm start` runs it before it starts anything (local/main.ts), on the
 * environment the functions will get (./function-wiring.ts), so a bad setting is refused in a moment instead of once
 * the stand-ins and threads are up. Loading this module loads every area's face (a few hundred ms of CPU the main
 * thread otherwise never spends): an in-process service (tests, benchmarks) leaves the check to the cold starts.
 */
export function checkSettings(env: Env): void {
  parseConfig(env);
  for (const settings of Object.values(AREA_SETTINGS)) settings.parse(env);
}
