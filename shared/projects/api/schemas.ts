import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int } from '../../http/wire-schemas.ts';
import { pageOf } from '../../http/pagination.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const project = withMeta(
  z.object({
    projectId: z.string(),
    companyId: int(),
    name: z.string(),
    monthlyBotCredits: int(),
    contactEmail: withMeta(z.nullable(z.string()), {
      description: 'Where the webhook notices (`webhook.failing`, `webhook.disabled`) are mailed; null: nobody.',
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
