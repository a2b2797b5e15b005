import { declareSettings, nonEmpty } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** Where the console function finds the console's built files. */
export const siteSettings = declareSettings({
  /**
   * The built console (`console/dist`: index.html, docs.html, assets/, openapi.json). Default: `site/` beside the
   * deployed function, else the repository's `console/dist` (a local run).
   */
  SITE_DIR: z.optional(nonEmpty()),
});
