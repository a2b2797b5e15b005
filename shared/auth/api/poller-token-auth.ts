import type { MiddlewareObj } from '@middy/core';
import { httpFunction } from '../../http/middleware.ts';
import { overloadHttpError } from '../../http/domain-errors.ts';
import { HttpError } from '../../http/errors.ts';
import type { HttpHandler } from '../../http/presets.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import { isOverload } from '../../kernel/overload.ts';
import { makeAuthenticatePollerToken } from '../authenticate.ts';
import type { PollerTokenGrant, TokenStore } from '../token-store.ts';

export type PollerTokenEvent = HttpEvent<unknown, PollerTokenGrant>;

/** A poller's token, else 401 ERR_NO_PERMISSION whatever the reason (as the other integration routes answer). */
function pollerTokenAuth(deps: { tokens: TokenStore; logger: Logger }): MiddlewareObj<PollerTokenEvent, HttpResult> {
  const authenticate = makeAuthenticatePollerToken({ tokens: deps.tokens });
  return {
    name: 'pollerTokenAuth',
    before: async (request) => {
      let grant: PollerTokenGrant | undefined;
      try {
        grant = await authenticate(request.event.normalizedHeaders.authorization);
      } catch (cause) {
        if (isOverload(cause)) throw overloadHttpError(cause);
        deps.logger.error('token store unreachable', { cause: String(cause) });
      }
      if (!grant) {
        throw new HttpError(
          401,
          'ERR_NO_PERMISSION',
          'A valid poller token is required: "Authorization: Bearer <POLLER_TOKEN>".',
        );
      }
      request.event.auth = grant;
    },
  };
}

/** A poller-token function (`GET /api/integration/events`): the poller's `sbp_` token (401 otherwise). */
export function pollerTokenFunction(options: {
  logger: Logger;
  metrics?: InvocationMetrics;
  tokens: TokenStore;
}): HttpHandler<PollerTokenEvent> {
  return httpFunction<PollerTokenEvent>(options.logger, options.metrics).use(
    pollerTokenAuth({ tokens: options.tokens, logger: options.logger }),
  );
}
