import type { Bot, BotStore } from '../bots/index.ts';
import { HttpError } from '../http/errors.ts';
import { sqsClient } from '../kernel/aws/sqs-client.ts';
import type { Platform } from '../kernel/platform.ts';
import { SqsIngestQueue } from './adapters/sqs-ingest-queue.ts';
import { DynamoKnowledgeFileStore } from './adapters/dynamo-knowledge-file-store.ts';
import { DynamoKnowledgeIndexStore } from './adapters/dynamo-knowledge-index-store.ts';
import { knowledgeHandlers } from './api/admin-routes.ts';
import { makeKnowledgeManagement } from './manage.ts';
import type { Config } from '../kernel/config.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Metrics } from '../kernel/metrics.ts';
import type { EmbeddingsProvider } from '../models/index.ts';
import type { KnowledgeObjectStore, KnowledgeUploadInbox } from './knowledge-files.ts';
import type { KnowledgeSearch } from './knowledge-search.ts';
import { makeKnowledgeSearch } from './search.ts';
import { SegmentCache, type SegmentCacheOptions } from './segment-cache.ts';

/**
 * The knowledge bucket as an object store: `onS3` gives the store over the bucket (the function's root chooses an S3
 * client loaded with it or on first use, `kernel/aws/lazy-s3-object-store.ts`); throws on use when the deployment
 * has none.
 */
export function knowledgeObjectsFromConfig(
  cfg: Config,
  onS3: (bucket: string) => KnowledgeObjectStore,
): KnowledgeObjectStore {
  if (cfg.BUCKET_KNOWLEDGE) return onS3(cfg.BUCKET_KNOWLEDGE);
  const missing = async (): Promise<never> => {
    throw new Error('BUCKET_KNOWLEDGE is not configured');
  };
  return {
    put: missing,
    putStream: missing,
    get: missing,
    getRange: missing,
    getTail: missing,
    delete: missing,
    deletePrefix: missing,
  };
}

/**
 * Bounds of a function's knowledge caches (segment tails, views, postings and text pieces): a tenth of the function's
 * memory, 64 to 100 MB (100 MB where the memory is not known: the local runner), and 384 MB of its /tmp (Lambda
 * gives 512 MB by default), whatever the bot's size: the rest is the runtime and one query's working set. Not more
 * than 100 MB: on a bot of 1 GB of text in 10 segments, 176 MB of cache (search's tenth) held the process at 470 MB
 * where 102 MB held it at 390, and bought nothing measurable (warm queries read nothing from the bucket with either,
 * new queries the same 26 pieces); pieces pushed out come back from /tmp, not from S3.
 */
export function knowledgeCacheFromConfig(cfg: Config): SegmentCacheOptions {
  const mb = cfg.AWS_LAMBDA_FUNCTION_MEMORY_SIZE;
  const cacheMb = mb ? Math.min(100, Math.max(64, Math.floor(mb / 10))) : 100;
  return { memoryBytes: cacheMb * 1024 * 1024, diskBytes: 384 * 1024 * 1024 };
}

/**
 * The `KnowledgeSearch` over the function's bot store and the knowledge bucket, with its segment cache: build it
 * once per cold start (module scope). What the search endpoint and the completion, chat and responses endpoints use:
 * one bounded path, so a bot's size changes what a query reads, not what a function holds. The objects and the
 * embeddings model come from the root, so the face carries neither the S3 client nor the model providers.
 */
export function knowledgeSearchFromConfig(
  cfg: Config,
  deps: {
    bots: BotStore;
    logger: Logger;
    metrics?: Metrics;
    objects: KnowledgeObjectStore;
    embeddings: EmbeddingsProvider | undefined;
  },
): KnowledgeSearch {
  return makeKnowledgeSearch({
    bots: deps.bots,
    segments: new SegmentCache(deps.objects, {
      ...knowledgeCacheFromConfig(cfg),
      logger: deps.logger,
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
    }),
    logger: deps.logger,
    ...(deps.embeddings ? { embeddings: deps.embeddings } : {}),
  });
}

/**
 * The knowledge routes of the management API and the use cases behind them. `objectsOn` and `inboxOn` give the
 * bucket's stores (the root loads S3 on first use); without a bucket or an ingest queue, uploads and upload URLs
 * answer 503 and deleting a bot still works.
 */
export function wireKnowledgeAdmin(
  platform: Pick<Platform, 'cfg' | 'logger' | 'table'>,
  deps: {
    requireBot(projectId: string, botId: string): Promise<Bot>;
    objectsOn: (bucket: string) => KnowledgeObjectStore;
    inboxOn: (bucket: string) => KnowledgeUploadInbox;
  },
) {
  const { cfg, logger, table } = platform;
  const unconfigured = (what: string) => () => {
    throw new HttpError(503, 'SERVICE_UNAVAILABLE', `Knowledge storage is not configured (${what}).`);
  };
  const objects: KnowledgeObjectStore = cfg.BUCKET_KNOWLEDGE
    ? deps.objectsOn(cfg.BUCKET_KNOWLEDGE)
    : {
        put: unconfigured('BUCKET_KNOWLEDGE'),
        putStream: unconfigured('BUCKET_KNOWLEDGE'),
        get: unconfigured('BUCKET_KNOWLEDGE'),
        getRange: unconfigured('BUCKET_KNOWLEDGE'),
        getTail: unconfigured('BUCKET_KNOWLEDGE'),
        delete: async () => {},
        deletePrefix: async () => {},
      };
  const knowledge = makeKnowledgeManagement({
    requireBot: deps.requireBot,
    files: new DynamoKnowledgeFileStore(table),
    index: new DynamoKnowledgeIndexStore(table),
    objects,
    queue: cfg.QUEUE_URL_INGEST
      ? new SqsIngestQueue(sqsClient(cfg), cfg.QUEUE_URL_INGEST)
      : { enqueue: unconfigured('QUEUE_URL_INGEST') },
    // Browser uploads (presigned POST): without a bucket, asking for an upload URL answers 503 like an upload.
    ...(cfg.BUCKET_KNOWLEDGE ? { inbox: deps.inboxOn(cfg.BUCKET_KNOWLEDGE) } : {}),
    logger,
  });
  return { knowledge, handlers: knowledgeHandlers(knowledge) };
}

export type KnowledgeAdmin = ReturnType<typeof wireKnowledgeAdmin>;
