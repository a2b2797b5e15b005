import { HttpError } from '../../http/errors.ts';
import { httpFunction } from '../../http/middleware.ts';
import type { HttpEvent } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';

/** The deprecated `/api/integration/send`, any method: 410 GONE, pointing at its replacement. */
export function legacySendHandler(logger: Logger) {
  return httpFunction(logger).handler(async (_event: HttpEvent) => {
    throw new HttpError(
      410,
      'GONE',
      'This endpoint was removed; send messages with POST /api/integration/generic (the channel comes from the token).',
    );
  });
}
