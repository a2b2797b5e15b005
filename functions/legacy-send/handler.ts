import { HttpError } from '#shared/http/errors.ts';
import { httpFunction } from '#shared/http/middleware.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';

const logger = createLogger('legacy-send');

/** The deprecated `/api/integration/send`, any method: 410 GONE, pointing at its replacement. */
export const handler = httpFunction(logger).handler(async (_event: HttpEvent) => {
  throw new HttpError(
    410,
    'GONE',
    'This endpoint was removed; send messages with POST /api/integration/generic (the channel comes from the token).',
  );
});
