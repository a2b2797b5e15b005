import type { MiddlewareObj } from '@middy/core';
import { bearerToken, secretsEqual } from '../../kernel/tokens.ts';
import { HttpError } from '../../http/errors.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';

/** Management API auth: `Authorization: Bearer <ADMIN_KEY>`, compared in constant time; anything else 401. */
export function adminAuth(adminKey: string): MiddlewareObj<HttpEvent, HttpResult> {
  return {
    name: 'adminAuth',
    before: (request) => {
      const presented = bearerToken(request.event.normalizedHeaders.authorization);
      if (presented === undefined || !secretsEqual(presented, adminKey)) {
        throw new HttpError(401, 'UNAUTHORIZED', 'A valid admin key is required: "Authorization: Bearer <ADMIN_KEY>".');
      }
    },
  };
}
