import { PowertoolsMetrics } from '#shared/kernel/adapters/powertools-metrics.ts';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { config } from '#shared/kernel/config.ts';
import { s3ObjectStoreOnFirstUse, s3UploadInboxOnFirstUse } from '#shared/kernel/aws/lazy-s3-object-store.ts';
import {
  DynamoKnowledgeFileStore,
  DynamoKnowledgeIndexStore,
  type IngestJob,
  knowledgeObjectsFromConfig,
  makeAcceptArrival,
  makeIngestKnowledge,
  makePdfPageReader,
  objectsCreatedIn,
  PDF_READ_BUDGET_MS,
  SegmentCache,
} from '#shared/knowledge/index.ts';
import { createLogger } from '#shared/kernel/logger.ts';
import { queues } from '#shared/contract/queues.ts';
import { embeddingsFromSettings } from '#shared/model-providers/index.ts';
import { ocrFromSettings } from '#shared/pdf/index.ts';
import { pdfOpenerFromConfig } from '#functions/_wiring/untrusted-pdf.ts';
import { documentReaderFromConfig } from '#functions/_wiring/untrusted-text.ts';
import { dynamoTable } from '#functions/_wiring/table.ts';
import { partialBatchResponse, workerFunction } from '#shared/http/worker.ts';

// Composition root: built once per cold start; opened segments stay cached between batches.
const cfg = config();
const logger = createLogger('ingest');
const metrics = new PowertoolsMetrics('ingest');
const table = dynamoTable(cfg);
const files = new DynamoKnowledgeFileStore(table);
const objects = knowledgeObjectsFromConfig(cfg, (bucket) => s3ObjectStoreOnFirstUse(cfg, bucket));
const acceptArrival = cfg.BUCKET_KNOWLEDGE
  ? makeAcceptArrival({ files, objects, inbox: s3UploadInboxOnFirstUse(cfg, cfg.BUCKET_KNOWLEDGE), logger })
  : undefined;
const ingest = makeIngestKnowledge({
  files,
  index: new DynamoKnowledgeIndexStore(table),
  objects,
  // Merges stream their inputs by range; the cache holds the views that decide what a merge keeps.
  segments: new SegmentCache(objects, { memoryBytes: 192 * 1024 * 1024, logger, metrics }),
  // The extract route's OCR: same engine choice, DPI and per-page time limit (OCR_* settings).
  readPdf: makePdfPageReader(ocrFromSettings({ cfg }, metrics), PDF_READ_BUDGET_MS, pdfOpenerFromConfig(cfg)),
  // HTML and Markdown: in-process on AWS, in a sandbox thread locally (UNTRUSTED_PARSING), as PDFs.
  readText: documentReaderFromConfig(cfg),
  // Text files keep the default 120 s; a PDF may be a scan read page by page by OCR (sized for 100 pages).
  pdfBudgetMs: PDF_READ_BUDGET_MS,
  embeddings: embeddingsFromSettings(cfg),
  logger,
});

/**
 * The `ingest` queue worker. A message is an ingest job (a PUT upload, a delete's merge request) or an S3 event
 * notification (a browser upload landed: ../../shared/knowledge/arrivals.ts decides whether it becomes a job).
 * Jobs are grouped by bot so a batch of uploads to one bot becomes one segment of its index. A bot whose jobs fail
 * transiently reports its records as batch item failures (they come back after the visibility timeout); on the last
 * receive the use case marks the files `failed` instead of throwing.
 */
export const handler = workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
  const byBot = new Map<string, { jobs: IngestJob[]; messageIds: string[]; finalAttempt: boolean }>();
  const failures: string[] = [];
  for (const record of event.Records) {
    let jobs: IngestJob[];
    try {
      jobs = await jobsOf(JSON.parse(record.body));
    } catch (error) {
      if (error instanceof MalformedJobError || error instanceof SyntaxError) {
        logger.error('malformed ingest message dropped', { messageId: record.messageId, cause: String(error) });
      } else {
        logger.warn('upload arrival not checked; will retry', { messageId: record.messageId, cause: String(error) });
        failures.push(record.messageId);
      }
      continue;
    }
    for (const job of jobs) {
      const group = byBot.get(job.botId) ?? { jobs: [], messageIds: [], finalAttempt: false };
      group.jobs.push(job);
      if (!group.messageIds.includes(record.messageId)) group.messageIds.push(record.messageId);
      if (Number(record.attributes.ApproximateReceiveCount ?? '1') >= queues.ingest.maxReceiveCount)
        group.finalAttempt = true;
      byBot.set(job.botId, group);
    }
  }
  for (const [botId, group] of byBot) {
    try {
      await ingest(botId, group.jobs, { finalAttempt: group.finalAttempt });
    } catch (error) {
      logger.warn('ingest failed; will retry', { botId, cause: String(error) });
      failures.push(...group.messageIds);
    }
  }
  return partialBatchResponse(failures);
});

class MalformedJobError extends Error {}

/** The jobs a message asks for: itself when it is a job; the accepted arrivals when it is an S3 event. */
async function jobsOf(body: unknown): Promise<IngestJob[]> {
  if (body && typeof body === 'object' && 'Records' in body) {
    const jobs: IngestJob[] = [];
    for (const arrived of objectsCreatedIn(body)) {
      const job = await acceptArrival?.(arrived);
      if (job) jobs.push(job);
    }
    return jobs;
  }
  if (body && typeof body === 'object' && 'Event' in body) return []; // S3's s3:TestEvent on notification set-up
  if (typeof (body as IngestJob | undefined)?.botId !== 'string') throw new MalformedJobError('no botId');
  return [body as IngestJob];
}
