import { fallbackHandler } from '#shared/http/fallback.ts';
import { createLogger } from '#shared/kernel/logger.ts';

/** What no route serves: 405 with `Allow` for a known path, else 404 (shared/http/fallback.ts). */
export const handler = fallbackHandler(createLogger('fallback'));
