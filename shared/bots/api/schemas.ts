import { withMeta } from '../../kernel/validation/meta.ts';
import * as z from '../../kernel/validation/zod.ts';
import { isoTime } from '../../http/wire-schemas.ts';
import { pageOf } from '../../http/pagination.ts';

/** Answer bodies of this area as the API returns them (the OpenAPI document shows them; tests check answers). */

export const bot = withMeta(
  z.object({
    botId: z.string(),
    projectId: z.string(),
    name: z.string(),
    instructions: z.string(),
    model: z.nullable(z.string()),
    temperature: z.nullable(z.number()),
    createdAt: isoTime,
    updatedAt: isoTime,
  }),
  { id: 'Bot' },
);

export const botPage = pageOf(bot, 'BotPage', 'Bots, in id order');
