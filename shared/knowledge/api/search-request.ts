import { BOTS_API_AUTH_ERRORS, JSON_BODY_ERRORS, type PublicOperationDocs } from '../../contract/api-docs.ts';
import * as z from '../../kernel/validation/zod.ts';
import { withMeta } from '../../kernel/validation/meta.ts';
import { searchResult } from './schemas.ts';

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

/** The route in the API reference (the OpenAPI document). */
export function searchDocs(): PublicOperationDocs {
  return {
    'POST /api/v1/ai/search': {
      operationId: 'searchKnowledge',
      summary: "Search a bot's knowledge (free)",
      description:
        'Excerpts only, no generation. A bot with no ready documents, or a failing index, answers 200 with `trechos: []`.',
      tags: ['AI'],
      security: 'apiToken',
      rateLimited: true,
      requestBodies: [{ contentType: 'application/json', schema: searchRequest, source: 'handler' }],
      responses: { 200: { description: 'Best excerpts first, at most `topK`.', body: searchResult } },
      errors: { ...JSON_BODY_ERRORS, ...BOTS_API_AUTH_ERRORS, 403: ['BOT_FORBIDDEN'], 404: ['BOT_NOT_FOUND'] },
    },
  };
}
