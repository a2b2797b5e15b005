import type { MiddlewareObj } from '@middy/core';
import type { ApiTokenResult } from '../authenticate.ts';
import type { ProjectApiTokenGrant } from '../token-store.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { RateDecision, RateLimiter } from '../../ratelimit/index.ts';
import { HttpError } from '../../http/errors.ts';
import { overloadHttpError } from '../../http/domain-errors.ts';
import { isOverload } from '../../kernel/overload.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';

/** What a Bots API handler knows about its caller once auth and the rate limit passed. */
export interface BotsApiCaller {
  grant: ProjectApiTokenGrant;
  tokenHash: string;
}

const MESSAGES = {
  ERR_API_TOKEN_NOT_PROVIDED: 'The Authorization header is missing: send "Authorization: Bearer <API_TOKEN>".',
  ERR_API_TOKEN_INVALID_FORMAT: 'The Authorization header must be "Bearer <API_TOKEN>" with a project API token.',
  ERR_API_TOKEN_INVALID: 'The API token is invalid or was revoked.',
  ERR_API_TOKEN_AUTHENTICATION_FAILED: 'The API token could not be verified right now; try again.',
} as const;

/**
 * Bots API authentication then rate limiting, in the contract's order: a bad token gets 401 and is never counted;
 * every authenticated request is counted, including those that then fail validation. RateLimit-* headers go on
 * every response from here on, errors included. `beside`, once the token is known, starts the route's own reads
 * while the limit is counted (they wait on the same round trip, not one after the other); it must answer nothing and
 * change nothing, since the request may still be refused.
 */
export function botsApiAuth(deps: {
  authenticate: (authorization: string | undefined) => Promise<ApiTokenResult>;
  limiter: RateLimiter;
  logger: Logger;
  now?: () => number;
  beside?: (event: HttpEvent) => void;
}): MiddlewareObj<HttpEvent<unknown, BotsApiCaller>, HttpResult> {
  const now = deps.now ?? Date.now;
  return {
    name: 'botsApiAuth',
    before: async (request) => {
      const event = request.event;
      const result = await deps.authenticate(event.normalizedHeaders.authorization);
      if (!result.ok) {
        // A throttled token store is the service busy, not a bad token: 503, and the caller retries.
        if (isOverload(result.cause)) throw overloadHttpError(result.cause);
        if (result.cause) deps.logger.error('token store unreachable', { cause: String(result.cause) });
        throw new HttpError(401, result.failure, MESSAGES[result.failure]);
      }
      deps.beside?.(event);
      let decision: RateDecision;
      try {
        // Arrival time as API Gateway stamped it: requests that arrive together are judged together, however long
        // they then wait for a DynamoDB write.
        decision = await deps.limiter.admit(result.tokenHash, event.requestContext?.requestTimeEpoch ?? now());
      } catch (cause) {
        // Fails closed: a limit that could not be checked admits nothing. The token's bucket is its own item, so a
        // throttle there is this token's traffic, and every other caller is unaffected.
        throw overloadHttpError(cause);
      }
      if (decision.limit > 0) {
        event.responseHeaders['RateLimit-Limit'] = String(decision.limit);
        event.responseHeaders['RateLimit-Remaining'] = String(decision.remaining);
        event.responseHeaders['RateLimit-Reset'] = String(decision.resetSeconds);
      }
      if (!decision.allowed) {
        throw new HttpError(
          429,
          'ERR_PUBLIC_AI_RATE_LIMIT',
          `Rate limit of ${decision.limit} requests per minute reached for this token.`,
          {
            headers: { 'Retry-After': String(decision.retryAfterSeconds ?? 1) },
          },
        );
      }
      event.auth = { grant: result.grant, tokenHash: result.tokenHash };
    },
  };
}
