import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int, isoTime } from '../../http/wire-schemas.ts';
import { botCredits } from '../../credits/index.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const healthResult = withMeta(
  z.object({
    success: z.literal(true),
    companyId: int(),
    botrag: z.object({ ok: z.boolean(), latenciaMs: z.number(), detalhe: z.optional(z.string()) }),
    creditos: botCredits,
    checkedAt: isoTime,
  }),
  { id: 'Health' },
);
