import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int, isoTime } from '../../http/wire-schemas.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const extractResult = withMeta(
  z.union([
    withMeta(
      z.object({
        success: z.literal(true),
        result: withMeta(z.string(), { description: 'Pages separated by a blank line.' }),
      }),
      { title: 'mode text' },
    ),
    withMeta(
      z.object({
        success: z.literal(true),
        dados: z.object({ pages: z.array(z.object({ page: int(), text: z.string(), ocr: z.boolean() })) }),
      }),
      { title: 'mode pages' },
    ),
  ]),
  { id: 'ExtractResult' },
);

export const extractUpload = withMeta(
  z.object({
    success: z.literal(true),
    uploadUrl: withMeta(z.string(), {
      description: 'Where to POST the PDF as multipart/form-data (the `fields` first, then `file`).',
    }),
    method: z.literal('POST'),
    fields: withMeta(z.record(z.string(), z.string()), {
      description: 'Form fields of the presigned POST, sent as given.',
    }),
    fileKey: withMeta(z.string(), {
      description: 'Pass it to `POST /api/v1/ai/extract` as JSON `{ "fileKey": "..." }`.',
    }),
    expiresAt: isoTime,
    maxBytes: int(),
  }),
  { id: 'ExtractUpload' },
);
