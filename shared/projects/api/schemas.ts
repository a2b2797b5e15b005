import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int } from '../../http/wire-schemas.ts';
import { pageOf } from '../../http/pagination.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

/**
 * The highest limits the operator may set on one project (requests a second): a metered channel's credit is charged on
 * the project's partition on every send (one write unit), so 500 sends keep it under half of that partition's 1,000;
 * a reported event writes nothing of the project's but its limit's buckets (40 items at 10,000).
 */
export const MAX_LIMITS = { sendsPerSecond: 500, eventsPerSecond: 10_000 } as const;

function projectLimits() {
  return withMeta(
    z.object({
      sendsPerSecond: withMeta(z.nullable(int()), {
        description:
          'Sends a second (`POST /api/integration/generic`) the project may make; above it: 429 `RATE_LIMITED` with ' +
          "`Retry-After`. null: the deployment's default (100).",
      }),
      eventsPerSecond: withMeta(z.nullable(int()), {
        description:
          "Events a second its channel back ends may report (`POST …/events`); above it: 429 `RATE_LIMITED`. null: the deployment's default (1,000).",
      }),
    }),
    {
      id: 'ProjectLimits',
      description:
        "The operator's limits on this project, in requests a second (a bucket of one second's worth, refilled " +
        'continuously). Provider callbacks are never refused for them.',
    },
  );
}

export const project = withMeta(
  z.object({
    projectId: z.string(),
    companyId: int(),
    name: z.string(),
    monthlyBotCredits: int(),
    contactEmail: withMeta(z.nullable(z.string()), {
      description: 'Where the webhook notices (`webhook.failing`, `webhook.disabled`) are mailed; null: nobody.',
    }),
    limits: projectLimits(),
    portal: withMeta(z.object({ allowedOrigins: z.array(z.string()) }), {
      description: 'Origins whose pages may frame the console a portal link opens; none by default.',
    }),
  }),
  { id: 'Project' },
);

export const projectPage = pageOf(project, 'ProjectPage', 'Projects, newest first');

export const apiTokenState = withMeta(
  z.object({
    active: withMeta(z.boolean(), { description: 'Whether the project has an API token now.' }),
    issuedAt: withMeta(z.optional(z.string()), { description: 'When the current token was issued (ISO 8601).' }),
  }),
  { id: 'ApiTokenState' },
);

export const shownOnceToken = withMeta(
  z.object({ token: withMeta(z.string(), { description: 'Shown once: only its SHA-256 is stored.' }) }),
  {
    id: 'ShownOnceToken',
  },
);
