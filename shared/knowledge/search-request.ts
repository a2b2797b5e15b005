import { z } from 'zod';

const patterns = z
  .array(z.string().min(1).max(1024))
  .max(100)
  .meta({ description: 'File-name patterns; `%` matches any run of characters, every other character is literal, case-insensitive.' });

/** The `POST /api/v1/ai/search` body: what the handler validates and what the OpenAPI document shows. */
export const searchRequest = z
  .strictObject({
    botId: z.string().min(1).max(200),
    query: z.string().min(1).max(2000).refine((q) => q.trim().length > 0, { message: 'The query must not be blank.' }),
    topK: z.number().int().min(1).max(8).default(5),
    filters: z
      .strictObject({
        incluirArquivos: patterns.optional().meta({ description: 'Only matching files are searched.' }),
        excluirArquivos: patterns.optional().meta({ description: 'Matching files are dropped, even if included.' }),
      })
      .optional(),
  })
  .meta({ id: 'SearchRequest' });

export type SearchRequest = z.output<typeof searchRequest>;
