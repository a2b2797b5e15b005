import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import { config } from '#shared/kernel/config.ts';
import { DynamoBotStore, resolveBotForProject } from '#shared/bots/index.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { embeddingsFromSettings } from '#shared/model-providers/index.ts';
import { knowledgeObjectsFromConfig, knowledgeSearchFromConfig, searchRequest } from '#shared/knowledge/index.ts';
import { validatedBody } from '#shared/http/presets.ts';
import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { json } from '#shared/http/types.ts';
import { createLogger } from '#shared/kernel/logger.ts';
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
  objects: knowledgeObjectsFromConfig(cfg, (bucket) => new S3ObjectStore(s3Client(cfg), bucket)),
  embeddings: embeddingsFromSettings(cfg),
});

/**
 * `POST /api/v1/ai/search`: the best excerpts of the bot's knowledge for a query. Free (no credit). Order: auth →
 * rate limit → body → validation → bot resolution (403 another project's bot, 404 none) → search. A failing index
 * answers 200 with no excerpts (logged).
 */
export const handler = botsApiFunction({
  logger,
  metrics,
  auth: wireBotsApiAuth({ table, metrics }),
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
