import type { MiddlewareObj } from '@middy/core';
import type { CustomTokenGrant } from '../auth/token-store.ts';
import type { Logger } from '../logging/logger.ts';
import { HttpError } from './errors.ts';
import type { HttpEvent, HttpResult } from './types.ts';

/**
 * Custom-token auth for the send API's routes: the grant in `event.auth`, else 401 ERR_NO_PERMISSION whatever the
 * reason (missing, malformed, unknown, or the token store unreachable).
 */
export function customTokenAuth(
  authenticate: (authorization: string | undefined) => Promise<CustomTokenGrant | undefined>,
  log: Logger,
): MiddlewareObj<HttpEvent<unknown, CustomTokenGrant>, HttpResult> {
  return {
    name: 'customTokenAuth',
    before: async (request) => {
      let grant: CustomTokenGrant | undefined;
      try {
        grant = await authenticate(request.event.normalizedHeaders.authorization);
      } catch (cause) {
        log.error('token store unreachable', { cause: String(cause) });
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
