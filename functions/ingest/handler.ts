import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/config/config.ts';
import { DynamoKnowledgeFileStore } from '#shared/adapters/dynamodb/knowledge-file-store.ts';
import { makeIngestKnowledge } from '#shared/knowledge/ingest.ts';
import type { IngestJob } from '#shared/knowledge/knowledge-files.ts';
import { pdfPageReader } from '#shared/knowledge/pdf-reader.ts';
import { createLogger } from '#shared/logging/logger.ts';
import { queues } from '#shared/resources/queues.ts';
import { embeddingsFromConfig, knowledgeObjectsFromConfig } from '#functions/_wiring/knowledge.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { workerFunction } from '#functions/_wiring/worker.ts';

// Composition root: built once per cold start; analysed files stay cached between batches.
const cfg = config();
const logger = createLogger('ingest');
const table = dynamoTable(cfg);
const ingest = makeIngestKnowledge({
  files: new DynamoKnowledgeFileStore(table),
  objects: knowledgeObjectsFromConfig(cfg),
  readPdf: pdfPageReader,
  embeddings: embeddingsFromConfig(cfg),
  logger,
});

/**
 * The `ingest` queue worker: jobs grouped by bot so a batch of uploads to one bot rebuilds its index once. A bot
 * whose jobs fail transiently reports its records as batch item failures (they come back after the visibility
 * timeout); on the last receive the use case marks the files `failed` instead of throwing.
 */
export const handler = workerFunction<SQSEvent, SQSBatchResponse>(logger).handler(async (event) => {
  const byBot = new Map<string, { jobs: IngestJob[]; messageIds: string[]; finalAttempt: boolean }>();
  for (const record of event.Records) {
    let job: IngestJob;
    try {
      job = JSON.parse(record.body) as IngestJob;
      if (typeof job?.botId !== 'string') throw new Error('no botId');
    } catch (error) {
      logger.error('malformed ingest job dropped', { messageId: record.messageId, cause: String(error) });
      continue;
    }
    const group = byBot.get(job.botId) ?? { jobs: [], messageIds: [], finalAttempt: false };
    group.jobs.push(job);
    group.messageIds.push(record.messageId);
    if (Number(record.attributes.ApproximateReceiveCount ?? '1') >= queues.ingest.maxReceiveCount)
      group.finalAttempt = true;
    byBot.set(job.botId, group);
  }
  const failures: string[] = [];
  for (const [botId, group] of byBot) {
    try {
      await ingest(botId, group.jobs, { finalAttempt: group.finalAttempt });
    } catch (error) {
      logger.warn('ingest failed; will retry', { botId, cause: String(error) });
      failures.push(...group.messageIds);
    }
  }
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
});
