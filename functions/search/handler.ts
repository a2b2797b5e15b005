import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { DynamoBotStore, resolveBotForProject } from '#shared/bots/index.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { S3KnowledgeObjectStore } from '#shared/knowledge/adapters/s3-knowledge-object-store.ts';
import { validatedBody } from '#shared/http/presets.ts';
import { botsApiFunction } from '#shared/auth/index.ts';
import { json } from '#shared/http/types.ts';
import { searchRequest } from '#shared/knowledge/api/search-request.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { botsApiAuthFromConfig } from '#functions/_wiring/bots-api.ts';
import { knowledgeSearchFromConfig } from '#functions/_wiring/knowledge.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';

// Composition root: built once per cold start; the index cache lives as long as the instance.
const cfg = config();
const logger = createLogger('search');
const metrics = new PowertoolsMetrics('search');
const table = dynamoTable(cfg);
const bots = new DynamoBotStore(table);
// Every search reads an index from the knowledge bucket, so S3 is loaded with the function, not on first use.
const knowledge = knowledgeSearchFromConfig(cfg, {
  bots,
  logger,
  metrics,
  ...(cfg.BUCKET_KNOWLEDGE ? { objects: new S3KnowledgeObjectStore(s3Client(cfg), cfg.BUCKET_KNOWLEDGE) } : {}),
});

/**
 * `POST /api/v1/ai/search`: the best excerpts of the bot's knowledge for a query. Free (no credit). Order: auth →
 * rate limit → body → validation → bot resolution (403 another project's bot, 404 none) → search. A failing index
 * answers 200 with no excerpts (logged).
 */
export const handler = botsApiFunction({
  logger,
  metrics,
  auth: botsApiAuthFromConfig(cfg, table, metrics),
  body: validatedBody(searchRequest),
}).handler(async (event) => {
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
