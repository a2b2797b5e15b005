import { HttpError } from '#shared/http/errors.ts';
import { httpFunction } from '#shared/http/middleware.ts';
import type { HttpEvent } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { matchRoute } from '#shared/contract/route-match.ts';
import { routes } from '#shared/contract/routes.ts';

const logger = createLogger('fallback');

/**
 * Answers what no route serves, with the contract's body: 405 METHOD_NOT_ALLOWED and `Allow` for a known path,
 * else 404 NOT_FOUND. On AWS it sits behind the API's `ANY` catch-alls; locally the gateway calls it the same way.
 */
export const handler = httpFunction(logger).handler(async (event: HttpEvent) => {
  const match = matchRoute(routes, event.httpMethod, event.path);
  if (match.kind === 'wrong-method') {
    throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Method ${event.httpMethod} is not allowed on ${event.path}.`, {
      headers: { Allow: match.allowed.join(', ') },
    });
  }
  throw new HttpError(404, 'NOT_FOUND', `No route for ${event.httpMethod} ${event.path}.`);
});
