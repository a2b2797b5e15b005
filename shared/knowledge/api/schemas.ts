import { pageOf } from '../../http/pagination.ts';
import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int, isoTime } from '../../http/wire-schemas.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const knowledgeFile = withMeta(
  z.object({
    fileName: z.string(),
    status: z.enum(['processing', 'ready', 'failed']),
    chunks: int(),
    error: z.optional(z.string()),
    ocrPages: z.optional(int()),
    contentType: z.string(),
    bytes: int(),
    uploadedAt: isoTime,
    updatedAt: isoTime,
  }),
  { id: 'KnowledgeFile' },
);

export const knowledgeFilePage = pageOf(knowledgeFile, 'KnowledgeFilePage', "The bot's knowledge files, by name");

export const knowledgeUploadAccepted = withMeta(z.object({ fileName: z.string(), status: z.literal('processing') }), {
  id: 'KnowledgeUploadAccepted',
});

export const knowledgeUploadUrl = withMeta(
  z.object({
    uploadUrl: z.string(),
    method: z.literal('POST'),
    fields: z.record(z.string(), z.string()),
    expiresAt: isoTime,
    maxBytes: int(),
  }),
  { id: 'KnowledgeUploadUrl' },
);

export const searchResult = withMeta(
  z.object({
    success: z.literal(true),
    trechos: z.array(
      z.object({
        texto: z.string(),
        procedencia: withMeta(z.string(), { description: 'The file name as uploaded.' }),
        score: z.number().check(z.gte(0), z.lte(1)),
      }),
    ),
  }),
  { id: 'SearchResult' },
);
