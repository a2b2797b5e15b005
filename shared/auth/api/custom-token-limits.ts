import type { MiddlewareObj } from '@middy/core';
import type { CustomTokenGrant } from '../token-store.ts';
import type { RateLimiter, TenantLimiter } from '../../ratelimit/index.ts';
import { HttpError } from '../../http/errors.ts';
import { overloadHttpError } from '../../http/domain-errors.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';

/** The limits a custom-token route counts a request against, right after the token is recognised. */
export interface CustomTokenLimitPorts {
  /** Each custom token's own requests a second, on every route it opens. */
  token: RateLimiter;
  /** The project's sends a second (`limits.sendsPerSecond`): the send routes only. */
  sends?: TenantLimiter;
}

/** The bucket of a custom token: one per integration (a rotated token replaces the integration's, it keeps its bucket). */
export const customTokenLimitKey = (grant: CustomTokenGrant) => `custom#${grant.integrationId}`;

/**
 * A custom token's limits, counted right after authentication and before anything else (a refused request claims no
 * `Idempotency-Key` and does nothing): over the token's limit or the project's sends a second, 429 `RATE_LIMITED`
 * with `Retry-After`. A limit that cannot be checked refuses (503), never admits. Both buckets are asked at once:
 * one round trip of waiting, not two.
 */
export function customTokenLimits(
  ports: CustomTokenLimitPorts,
): MiddlewareObj<HttpEvent<unknown, CustomTokenGrant>, HttpResult> {
  return {
    name: 'customTokenLimits',
    before: async (request) => {
      const event = request.event;
      const grant = event.auth;
      // Arrival time as API Gateway stamped it: requests that arrive together are judged together.
      const at = event.requestContext?.requestTimeEpoch ?? Date.now();
      const [token, sends] = await Promise.allSettled([
        ports.token.admit(customTokenLimitKey(grant), at),
        ports.sends?.admit(grant.projectId, 'sends', at),
      ]);
      if (token.status === 'rejected') throw overloadHttpError(token.reason);
      if (!token.value.allowed) {
        const wait = token.value.retryAfterSeconds ?? 1;
        throw new HttpError(
          429,
          'RATE_LIMITED',
          `This token's limit of ${token.value.limit} requests a second was reached; retry after ${wait} s.`,
          { headers: { 'Retry-After': String(wait) } },
        );
      }
      // The project's refusal is a domain error (429 RATE_LIMITED) or an overload (503): the edge answers either.
      if (sends.status === 'rejected') throw sends.reason;
    },
  };
}
