import * as z from '../../kernel/validation/zod.ts';
import { withMeta } from '../../kernel/validation/meta.ts';

const patterns = withMeta(z.array(z.string().check(z.minLength(1), z.maxLength(1024))).check(z.maxLength(100)), {
  description:
    'File-name patterns; `%` matches any run of characters, every other character is literal, case-insensitive.',
});

/** The `POST /api/v1/ai/search` body: what the handler validates and what the OpenAPI document shows. */
export const searchRequest = withMeta(
  z.strictObject({
    botId: z.string().check(z.minLength(1), z.maxLength(200)),
    query: z.string().check(
      z.minLength(1),
      z.maxLength(2000),
      z.refine((q) => q.trim().length > 0, { message: 'The query must not be blank.' }),
    ),
    topK: z._default(z.number().check(z.int(), z.gte(1), z.lte(8)), 5),
    filters: z.optional(
      z.strictObject({
        incluirArquivos: withMeta(z.optional(patterns), { description: 'Only matching files are searched.' }),
        excluirArquivos: withMeta(z.optional(patterns), {
          description: 'Matching files are dropped, even if included.',
        }),
      }),
    ),
  }),
  { id: 'SearchRequest' },
);

export type SearchRequest = z.output<typeof searchRequest>;
