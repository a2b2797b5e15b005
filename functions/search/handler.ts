import { botsApiFunction, wireBotsApiAuth } from '#shared/auth/index.ts';
import { DynamoBotStore } from '#shared/bots/index.ts';
import { validatedBody } from '#shared/http/presets.ts';
import { s3Client } from '#shared/kernel/aws/s3-client.ts';
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { searchRequest, wireSearch } from '#shared/knowledge/index.ts';
import { embeddingsFromSettings } from '#shared/model-providers/index.ts';
import { meteredPlatform } from '#functions/_wiring/platform.ts';

// Composition root: built once per cold start; the index cache lives as long as the instance.
const platform = meteredPlatform('search');
const { cfg, logger, metrics, table } = platform;

const search = wireSearch(platform, {
  bots: new DynamoBotStore(table),
  // Every search reads an index from the knowledge bucket, so S3 is loaded with the function, not on first use.
  objectsOn: (bucket) => new S3ObjectStore(s3Client(cfg), bucket),
  embeddings: embeddingsFromSettings(cfg),
});

/**
 * `POST /api/v1/ai/search`: the best excerpts of the bot's knowledge for a query. Free (no credit). Order: auth →
 * rate limit (the bot read beside it) → body → validation → bot resolution → search
 * (shared/knowledge/api/search-route.ts).
 */
export const handler = botsApiFunction({
  logger,
  metrics,
  auth: wireBotsApiAuth(platform),
  body: validatedBody(searchRequest),
  beside: search.beside,
}).handler(search.handler);
