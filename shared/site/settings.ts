import { declareSettings, nonEmpty } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** Where the console function finds the console's built files. */
export const siteSettings = declareSettings({
  /**
   * The built console (`console/dist`: index.html, docs.html, assets/, openapi.json). Default: `site/` beside the
   * deployed function, else the repository's `console/dist` (a local run).
   */
  SITE_DIR: z.optional(nonEmpty()),
  /**
   * The object store's origins, comma-separated (`https://<bucket>.s3.<region>.amazonaws.com`): the console posts
   * knowledge files straight there and previews received media from there, so its Content-Security-Policy allows
   * them (`connect-src`, `img-src`). The stack sets them from its buckets; a local run adds `S3_ENDPOINT`'s origin.
   */
  SITE_STORE_ORIGINS: z.optional(
    z.pipe(
      nonEmpty(),
      z.transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean)
          .map((o) => new URL(o).origin),
      ),
    ),
  ),
});
