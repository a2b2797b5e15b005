import { positiveInt, declareSettings } from '../kernel/settings.ts';
import * as z from '../kernel/validation/zod.ts';

/** The deployment's rate limits: the Bots API's per token, a project's defaults, a custom token's own. */
export const ratelimitSettings = declareSettings({
  /** Requests a minute one project API token may make on the Bots API (a GCRA bucket of this many, refilled evenly). */
  BOT_RATE_LIMIT_PER_MINUTE: z._default(positiveInt(100_000), 60),
  /** A project's sends per second when its `limits.sendsPerSecond` is not set (the send routes answer 429 above). */
  PROJECT_SENDS_PER_SECOND: z._default(positiveInt(500), 100),
  /** A project's reported events per second when its `limits.eventsPerSecond` is not set (`POST …/events`). */
  PROJECT_EVENTS_PER_SECOND: z._default(positiveInt(10_000), 1_000),
  /** Requests per second one custom token may make on the routes it opens (sends and the message reads). */
  CUSTOM_TOKEN_RATE_LIMIT_PER_SECOND: z._default(positiveInt(10_000), 100),
  /** How long a function instance trusts a project's `limits` it read (a change applies within this). */
  PROJECT_LIMITS_CACHE_SECONDS: z._default(z.coerce.number().check(z.gte(0), z.lte(3600)), 10),
});
