import { DynamoBotStore } from '../adapters/dynamodb/bot-store.ts';
import type { DynamoTable } from '../adapters/dynamodb/table.ts';
import { S3KnowledgeObjectStore } from '../adapters/s3/knowledge-object-store.ts';
import { s3Client } from '../adapters/s3/clients.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import type { KnowledgeObjectStore } from './knowledge-files.ts';
import type { KnowledgeSearch } from './knowledge-search.ts';
import { IndexCache, makeKnowledgeSearch } from './search.ts';

/** The knowledge bucket as an object store; throws on use when the deployment has none. */
export function knowledgeObjectsFromConfig(cfg: Config): KnowledgeObjectStore {
  if (cfg.BUCKET_KNOWLEDGE) return new S3KnowledgeObjectStore(s3Client(cfg), cfg.BUCKET_KNOWLEDGE);
  const missing = async (): Promise<never> => {
    throw new Error('BUCKET_KNOWLEDGE is not configured');
  };
  return { put: missing, get: missing, delete: missing, deletePrefix: missing };
}

/**
 * The `KnowledgeSearch` wired to DynamoDB and the knowledge bucket, with its in-memory index cache: build it once
 * per cold start (module scope). What the search endpoint and the completion endpoint use.
 */
export function knowledgeSearchFromConfig(cfg: Config, table: DynamoTable, logger: Logger): KnowledgeSearch {
  return makeKnowledgeSearch({
    bots: new DynamoBotStore(table),
    indexes: new IndexCache(knowledgeObjectsFromConfig(cfg)),
    logger,
  });
}
