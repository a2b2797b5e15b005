import type { MiddlewareObj } from '@middy/core';
import type { CustomTokenGrant } from '../token-store.ts';
import type { RateDecision, RateLimiter, TenantLimiter } from '../../ratelimit/index.ts';
import { HttpError } from '../../http/errors.ts';
import { overloadHttpError } from '../../http/domain-errors.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';

/** The limits a custom-token route counts a request against, right after the token is recognised. */
export interface CustomTokenLimitPorts {
  /** Each custom token's own requests a second, on every route it opens. */
  token: RateLimiter;
  /** The token's limit, requests a second. */
  tokenPerSecond: number;
  /** The project's sends a second (`limits.sendsPerSecond`): the send routes only. */
  sends?: TenantLimiter;
}

/** The bucket of a custom token: one per integration (a rotated token replaces the integration's, it keeps its bucket). */
export const customTokenLimitKey = (grant: CustomTokenGrant) => `custom#${grant.integrationId}`;

/**
 * A custom token's limits, counted right after authentication and before anything else (a refused request claims no
 * `Idempotency-Key` and does nothing): over the project's sends a second or the token's own limit, 429
 * `RATE_LIMITED` with `Retry-After`. A limit that cannot be checked refuses (503), never admits. The project's bucket
 * is asked first: a project flooding past its limit is refused from what this instance already knows of its full
 * bucket, without a write to either bucket, so its flood costs the service (and the other tenants) little. When the
 * project's limit is no higher than the token's, the token's bucket could never refuse a send the project's admitted
 * (a token is one project's), so a send writes the project's bucket alone.
 */
export function customTokenLimits(
  ports: CustomTokenLimitPorts,
): MiddlewareObj<HttpEvent<unknown, CustomTokenGrant>, HttpResult> {
  return {
    name: 'customTokenLimits',
    before: async (request) => {
      const event = request.event;
      const grant = event.auth;
      // Judged when the check runs, not when API Gateway stamped the arrival: a bucket of one second's worth would
      // refuse a request that waited longer than its window behind later arrivals (a cold start, a loaded host),
      // since those moved the bucket past its time.
      const at = Date.now();
      // The project's refusal is a domain error (429 RATE_LIMITED) or an overload (503): the edge answers either.
      const project = await ports.sends?.admit(grant.projectId, 'sends', at);
      if (project && project.limit <= ports.tokenPerSecond) return;
      let token: RateDecision;
      try {
        token = await ports.token.admit(customTokenLimitKey(grant), at);
      } catch (cause) {
        throw overloadHttpError(cause);
      }
      if (!token.allowed) {
        const wait = token.retryAfterSeconds ?? 1;
        throw new HttpError(
          429,
          'RATE_LIMITED',
          `This token's limit of ${token.limit} requests a second was reached; retry after ${wait} s.`,
          { headers: { 'Retry-After': String(wait) } },
        );
      }
    },
  };
}
