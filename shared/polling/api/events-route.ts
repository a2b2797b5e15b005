import type { PublicOperationDocs } from '../../contract/api-docs.ts';
import type { PollerTokenGrant } from '../../auth/index.ts';
import { overloadHttpError } from '../../http/domain-errors.ts';
import type { RateDecision, RateLimiter } from '../../ratelimit/index.ts';
import { validate } from '../../http/middleware.ts';
import { MAX_CURSOR_LENGTH } from '../../http/pagination.ts';
import type { HttpEvent, HttpResult } from '../../http/types.ts';
import { HttpError } from '../../http/errors.ts';
import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import type { PollerRules, PollEvents } from '../poll-events.ts';

/** Events a page may hold (the answer stays far below a Lambda's 6 MB for envelopes of a few KB). */
export const MAX_POLL_LIMIT = 250;

const pollQuery = z.strictObject({
  limit: withMeta(z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(MAX_POLL_LIMIT)), 100), {
    description: `Events per page, 1 to ${MAX_POLL_LIMIT} (default 100).`,
  }),
  cursor: withMeta(z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_CURSOR_LENGTH))), {
    description: "The previous answer's `nextCursor`, unchanged; none: from the oldest kept event.",
  }),
});

const pollPage = withMeta(
  z.object({
    items: withMeta(z.array(z.record(z.string(), z.unknown())), {
      description: 'Event envelopes (as a webhook receives them), oldest first.',
    }),
    // Always sent; optional here only so the page has the one page shape every list has (`items` required).
    nextCursor: withMeta(z.optional(z.string()), {
      description: 'Where the next call goes on; always present (a caught-up consumer resumes from it later).',
    }),
    done: withMeta(z.optional(z.boolean()), { description: 'Caught up: nothing newer to read now. Always present.' }),
  }),
  { id: 'PolledEvents' },
);

/** The bucket of a poller: one per integration (a rotated token keeps it). */
export const pollerLimitKey = (integrationId: string) => `poller#${integrationId}`;

/**
 * `GET /api/integration/events` once the poller's token passed: its own rate counted first (429 `RATE_LIMITED` with
 * `Retry-After` past it, nothing read; a limit that cannot be checked refuses with 503), its rules read, the log
 * read from the cursor.
 */
export function pollEventsHandler(deps: {
  pollEvents: PollEvents;
  /** Each poller's requests a second. */
  limiter: RateLimiter;
  /** The poller's rules; undefined when the poller is gone (its token then fails too). */
  rulesOf: (projectId: string, integrationId: string) => Promise<PollerRules | undefined>;
}) {
  return async function servePollEvents(event: HttpEvent<unknown, PollerTokenGrant>): Promise<HttpResult> {
    let decision: RateDecision;
    try {
      decision = await deps.limiter.admit(pollerLimitKey(event.auth.integrationId), Date.now());
    } catch (cause) {
      throw overloadHttpError(cause);
    }
    if (!decision.allowed) {
      const wait = decision.retryAfterSeconds ?? 1;
      throw new HttpError(
        429,
        'RATE_LIMITED',
        `This poller's limit of ${decision.limit} requests a second was reached; retry after ${wait} s.`,
        { headers: { 'Retry-After': String(wait) } },
      );
    }
    const raw: Record<string, string> = {};
    for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (v !== undefined) raw[k] = v;
    const query = validate(pollQuery, raw);
    const { projectId, integrationId } = event.auth;
    const rules = await deps.rulesOf(projectId, integrationId);
    if (!rules) throw new HttpError(401, 'ERR_NO_PERMISSION', 'This poller no longer exists.');
    const page = await deps.pollEvents(
      { projectId, integrationId, rules },
      { limit: query.limit, ...(query.cursor !== undefined ? { cursor: query.cursor } : {}) },
    );
    // The envelopes are JSON texts already (the fan-out's): joined into the page, not parsed and written again.
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      body: `{"items":[${page.items.join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)},"done":${page.done}}`,
    };
  };
}

/** The route in the API reference. */
export function pollEventsDocs(): PublicOperationDocs {
  return {
    'GET /api/integration/events': {
      operationId: 'listEvents',
      summary: "Read the project's events, oldest first (poller)",
      description:
        "For a `poller` integration's token: the project's events (kept 7 days) that pass the poller's `eventTypes` " +
        "and `filter`, oldest first, from `cursor`. The cursor is the consumer's only state: keep the last " +
        '`nextCursor` and call again with it; `done: true` means caught up for now. An event may come twice (at ' +
        'least once, as webhooks): deduplicate by `id`. A cursor this service did not issue for this poller: 400.',
      tags: ['Messages'],
      security: 'pollerToken',
      paged: true,
      query: {
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: MAX_POLL_LIMIT, default: 100 },
          cursor: {
            type: 'string',
            maxLength: MAX_CURSOR_LENGTH,
            description: "The previous answer's `nextCursor`, unchanged; none: from the oldest kept event.",
            examples: ['djEuY3Vyc29yLmV4YW1wbGU'],
          },
        },
      },
      responses: { 200: { description: 'A page of events.', body: pollPage } },
      errors: { 400: ['VALIDATION_ERROR'], 401: ['ERR_NO_PERMISSION'], 429: ['RATE_LIMITED'] },
    },
  };
}
