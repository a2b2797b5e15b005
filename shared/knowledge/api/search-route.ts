import { type Bot, resolveBotForProject } from '../../bots/index.ts';
import type { ProjectApiTokenGrant } from '../../auth/index.ts';
import { type HttpEvent, type HttpResult, json } from '../../http/types.ts';
import type { KnowledgeSearch } from '../knowledge-search.ts';
import type { SearchRequest } from './search-request.ts';

/**
 * `POST /api/v1/ai/search` once the project API token passed and the body was validated: the bot resolved (403
 * another project's bot, 404 none), then the best excerpts of its knowledge for the query. Free (no credit). A
 * failing index answers 200 with no excerpts (logged by the search).
 */
export function searchHandler(deps: {
  bots: { get(botId: string): Promise<Bot | undefined> };
  knowledge: KnowledgeSearch;
}) {
  return async function serveSearch(
    event: HttpEvent<SearchRequest, { grant: ProjectApiTokenGrant }>,
  ): Promise<HttpResult> {
    const body = event.parsedBody;
    const bot = await resolveBotForProject(deps.bots, body.botId, event.auth.grant.projectId);
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
  };
}
