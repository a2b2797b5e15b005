import { config } from '#shared/config/config.ts';
import { dynamoDocumentClient } from '#shared/adapters/aws/clients.ts';
import { DynamoBotStore } from '#shared/adapters/dynamodb/bot-store.ts';
import { s3Client } from '#shared/adapters/s3/clients.ts';
import { S3KnowledgeObjectStore } from '#shared/adapters/s3/knowledge-object-store.ts';
import { resolveBotForProject } from '#shared/bots/bot.ts';
import { botsApiAuthFromConfig } from '#shared/http/bots-api-deps.ts';
import type { BotsApiCaller } from '#shared/http/bots-api.ts';
import { httpFunction, jsonBody, validateBody } from '#shared/http/middleware.ts';
import { json, type HttpEvent } from '#shared/http/types.ts';
import { knowledgeSearchFromConfig } from '#shared/knowledge/from-config.ts';
import { searchRequest, type SearchRequest } from '#shared/knowledge/search-request.ts';
import { createLogger } from '#shared/logging/logger.ts';

// Composition root: built once per cold start; the index cache lives as long as the instance.
const cfg = config();
const logger = createLogger('search');
const table = { client: dynamoDocumentClient(cfg), tableName: cfg.TABLE_NAME };
const bots = new DynamoBotStore(table);
// Every search reads an index from the knowledge bucket, so S3 is loaded with the function, not on first use.
const knowledge = knowledgeSearchFromConfig(
  cfg,
  table,
  logger,
  cfg.BUCKET_KNOWLEDGE ? new S3KnowledgeObjectStore(s3Client(cfg), cfg.BUCKET_KNOWLEDGE) : undefined,
);

/**
 * `POST /api/v1/ai/search`: the best excerpts of the bot's knowledge for a query. Free (no credit). Order: auth →
 * rate limit → body → validation → bot resolution (403 another project's bot, 404 none) → search. A failing index
 * answers 200 with no excerpts (logged).
 */
export const handler = httpFunction(logger)
  .use(botsApiAuthFromConfig(cfg, table, logger))
  .use(jsonBody())
  .use(validateBody(searchRequest))
  .handler(async (event: HttpEvent<SearchRequest, BotsApiCaller>) => {
    const body = event.parsedBody;
    const bot = await resolveBotForProject(bots, body.botId, event.auth.grant.projectId);
    const excerpts = await knowledge.search({
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
  });
