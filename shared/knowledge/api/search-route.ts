import { type Bot, resolveBotForProject } from '../../bots/index.ts';
import type { ProjectApiTokenGrant } from '../../auth/index.ts';
import { parseJsonObjectBody } from '../../http/middleware.ts';
import { type HttpEvent, type HttpResult, json } from '../../http/types.ts';
import type { KnowledgeSearch } from '../knowledge-search.ts';
import type { SearchRequest } from './search-request.ts';

/**
 * `POST /api/v1/ai/search` once the project API token passed and the body was validated: the bot resolved (403
 * another project's bot, 404 none), then the best excerpts of its knowledge for the query. Free (no credit). A
 * failing index answers 200 with no excerpts (logged by the search).
 *
 * `beside` (for botsApiFunction) starts the bot's read as soon as the token is known, while the rate limit is
 * counted: the read needs only the body's bot id, so a search waits on one DynamoDB round trip less. The handler
 * takes that read only for the bot id the validated body names; a request the limit refuses, or whose body is
 * invalid, answers as before and leaves it unused (its failure too). The token itself is still read on every request.
 */
export function searchRoute(deps: {
  bots: { get(botId: string): Promise<Bot | undefined> };
  knowledge: KnowledgeSearch;
}) {
  const readAhead = new WeakMap<object, { botId: string; bot: Promise<Bot | undefined> }>();
  function beside(event: HttpEvent): void {
    const botId = rawBotId(event);
    if (botId === undefined) return;
    const bot = deps.bots.get(botId);
    bot.catch(() => {});
    readAhead.set(event, { botId, bot });
  }
  async function handler(event: HttpEvent<SearchRequest, { grant: ProjectApiTokenGrant }>): Promise<HttpResult> {
    const body = event.parsedBody;
    const ahead = readAhead.get(event);
    const bots = ahead?.botId === body.botId ? { get: () => ahead.bot } : deps.bots;
    const bot = await resolveBotForProject(bots, body.botId, event.auth.grant.projectId);
    const excerpts = await deps.knowledge.search({
      botId: bot.botId,
      bot,
      query: body.query,
      topK: body.topK,
      filters: { include: body.filters?.incluirArquivos, exclude: body.filters?.excluirArquivos },
    });
    return json(200, {
      success: true,
      trechos: excerpts.map((e) => ({ texto: e.text, procedencia: e.fileName, score: e.score })),
    });
  }
  return { beside, handler };
}

/** The body's `botId` when it is one the validation can accept (a string of 1 to 200 characters); else undefined. */
function rawBotId(event: HttpEvent): string | undefined {
  try {
    const botId = parseJsonObjectBody(event).botId;
    return typeof botId === 'string' && botId.length >= 1 && botId.length <= 200 ? botId : undefined;
  } catch {
    return undefined;
  }
}
