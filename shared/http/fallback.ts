import { matchRoute } from '../contract/route-match.ts';
import { routes } from '../contract/routes.ts';
import type { Logger } from '../kernel/logger.ts';
import { HttpError } from './errors.ts';
import { httpFunction } from './middleware.ts';
import { type HttpEvent, json } from './types.ts';

/** The OpenAI-format routes' neighbourhood: what OpenAI's clients call, answered in OpenAI's error body. */
const OPENAI_FORMAT = /^\/api\/v1\/ai\/(chat(\/|$)|responses(\/|$)|models(\/|$)|embeddings(\/|$))/;

/**
 * Answers what no route serves, with the contract's body: 405 METHOD_NOT_ALLOWED and `Allow` for a known path,
 * else 404 NOT_FOUND; under the OpenAI-format paths (`/api/v1/ai/chat/…`, `/responses…`, `/models…`,
 * `/embeddings…`) in OpenAI's body (`{ error: { message, type, param, code } }`), so their clients raise their typed
 * errors. On AWS it sits behind the API's `ANY` catch-alls; locally the gateway calls it the same way.
 */
export function fallbackHandler(logger: Logger) {
  return httpFunction(logger).handler(async (event: HttpEvent) => {
    const match = matchRoute(routes, event.httpMethod, event.path);
    const wrongMethod = match.kind === 'wrong-method';
    if (OPENAI_FORMAT.test(event.path)) {
      const stored = /^\/api\/v1\/ai\/responses\/./.test(event.path);
      const message = wrongMethod
        ? `Method ${event.httpMethod} is not allowed on ${event.path}.`
        : stored
          ? 'Responses are not stored (this API is stateless): there is nothing to retrieve, cancel or list.'
          : `No route for ${event.httpMethod} ${event.path}.`;
      return json(
        wrongMethod ? 405 : 404,
        {
          error: {
            message,
            type: 'invalid_request_error',
            param: null,
            code: wrongMethod ? 'method_not_allowed' : 'not_found',
          },
        },
        wrongMethod ? { Allow: match.allowed.join(', ') } : {},
      );
    }
    if (wrongMethod) {
      throw new HttpError(405, 'METHOD_NOT_ALLOWED', `Method ${event.httpMethod} is not allowed on ${event.path}.`, {
        headers: { Allow: match.allowed.join(', ') },
      });
    }
    throw new HttpError(404, 'NOT_FOUND', `No route for ${event.httpMethod} ${event.path}.`);
  });
}
