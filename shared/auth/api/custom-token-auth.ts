import type { MiddlewareObj } from '@middy/core';
import type { CustomTokenGrant } from '../token-store.ts';
import type { Logger } from '../../kernel/logger.ts';
import { HttpError } from '../../http/errors.ts';
import { overloadHttpError } from '../../http/domain-errors.ts';
import { isOverload } from '../../kernel/overload.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';

/** The send endpoint's auth: a custom token, else 401 ERR_NO_PERMISSION whatever the reason. */
export function customTokenAuth(deps: {
  authenticate: (authorization: string | undefined) => Promise<CustomTokenGrant | undefined>;
  logger: Logger;
}): MiddlewareObj<HttpEvent<unknown, CustomTokenGrant>, HttpResult> {
  return {
    name: 'customTokenAuth',
    before: async (request) => {
      let grant: CustomTokenGrant | undefined;
      try {
        grant = await deps.authenticate(request.event.normalizedHeaders.authorization);
      } catch (cause) {
        // A throttled token store is the service busy, not a bad token: 503, and the caller retries.
        if (isOverload(cause)) throw overloadHttpError(cause);
        deps.logger.error('token store unreachable', { cause: String(cause) });
      }
      if (!grant)
        throw new HttpError(
          401,
          'ERR_NO_PERMISSION',
          'A valid custom integration token is required: "Authorization: Bearer <CUSTOM_TOKEN>".',
        );
      request.event.auth = grant;
    },
  };
}
