import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { int } from '../../http/wire-schemas.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const botCredits = withMeta(
  z.object({
    disponivel: withMeta(int(), { description: 'Bot credits left this month.' }),
    mes: withMeta(z.string().check(z.regex(/^\d{2}\/\d{4}$/)), { description: 'The month, `MM/YYYY` (UTC).' }),
  }),
  { id: 'BotCredits' },
);

/** This month's bot credit use per UTC day (the console's credit chart). */
export const botCreditUsage = withMeta(
  z.object({
    mes: withMeta(z.string().check(z.regex(/^\d{2}\/\d{4}$/)), { description: 'The month, `MM/YYYY` (UTC).' }),
    disponivel: withMeta(int(), { description: 'Bot credits left this month.' }),
    allowance: withMeta(int(), { description: "The month's allowance (the project's monthly bot credits)." }),
    granted: withMeta(int(), { description: 'Credits granted on top of the allowance this month.' }),
    days: withMeta(z.array(z.object({ day: int(), charged: int(), refunded: int() })), {
      description:
        'Each UTC day of the month up to today: credits charged and credits refunded that day (used = charged - refunded).',
    }),
  }),
  { id: 'BotCreditUsage' },
);
