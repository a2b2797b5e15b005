import { S3Client } from '@aws-sdk/client-s3';
import type { Emulators } from '#local/emulators.ts';
import { S3ObjectStore } from '#shared/kernel/aws/s3-object-store.ts';
import { buildSegment, type DynamoKnowledgeIndexStore, SEGMENT_FORMAT } from '#shared/knowledge/index.ts';
import { corpusQueries } from './zipf-corpus.ts';

/**
 * Gives `botId` the knowledge benchmarks' anchor: one small file (30 excerpts of the corpus's words) in one segment,
 * written to the local bucket and listed on the bot, so a search of it costs the gateway, authentication, rate limit
 * and bot read with next to no index.
 */
export async function addAnchorSegment(
  emulators: Emulators,
  index: DynamoKnowledgeIndexStore,
  botId: string,
): Promise<void> {
  const s3 = new S3Client({
    region: emulators.region,
    endpoint: emulators.awsEndpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const bytes = buildSegment([
    { fileKey: 'a', fileName: 'anchor.txt', generation: 'g', language: 'pt', excerpts: corpusQueries(30, 5) },
  ]);
  const key = `bots/${botId}/segments/anchor.sbks`;
  await new S3ObjectStore(s3, emulators.bucketNames.knowledge).put(key, bytes, 'application/octet-stream');
  await index.addSegment(botId, {
    id: 'a',
    key,
    docs: 1,
    excerpts: 30,
    markers: 0,
    bytes: bytes.length,
    format: SEGMENT_FORMAT,
  });
  s3.destroy();
}
