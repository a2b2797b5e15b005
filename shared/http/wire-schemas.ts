import { withMeta } from '../kernel/validation/meta.ts';
import * as z from '../kernel/validation/zod.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const int = () => z.number().check(z.int());

export const isoTime = withMeta(z.iso.datetime(), { description: 'ISO 8601 timestamp (UTC).' });

/** `{ success: false, error, message, details?, requestId }`: every answer with status >= 400 (contract 1). */
export const errorBody = withMeta(
  z.object({
    success: z.literal(false),
    error: withMeta(z.string(), {
      description: "Machine-readable code (see the operation's answers for the codes it can give).",
    }),
    message: withMeta(z.string(), { description: 'Human text; wording may change.' }),
    details: withMeta(
      z.optional(
        z.array(
          z.object({
            path: withMeta(z.string(), {
              description: 'Dotted path of the field: `to`, `files.0`, `filters.incluirArquivos`.',
            }),
            message: z.string(),
            code: withMeta(z.string(), {
              description: 'The zod issue code (`invalid_type`, `too_big`, `unrecognized_keys`, `custom`, ...).',
            }),
          }),
        ),
      ),
      { description: 'Validation errors: one entry per problem, all at once.' },
    ),
    closedAt: withMeta(z.optional(z.nullable(z.string())), {
      description:
        '`WINDOW_CLOSED` only: when the WhatsApp window closed (ISO 8601), or null when the contact never wrote.',
    }),
    requestId: withMeta(z.string(), { description: 'The `x-request-id` of the request.' }),
  }),
  { id: 'ErrorResponse' },
);

export const list = <T extends z.ZodMiniType>(item: T, id: string) =>
  withMeta(z.object({ items: z.array(item) }), { id });
