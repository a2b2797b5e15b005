import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { queues } from '../../contract/queues.ts';
import { partialBatchResponse, workerFunction } from '../../http/worker.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { InvocationMetrics } from '../../kernel/metrics.ts';
import { type ArrivedObject, objectsCreatedIn } from '../arrivals.ts';
import type { makeIngestKnowledge } from '../ingest.ts';
import type { IngestJob } from '../knowledge-files.ts';

/**
 * The `ingest` queue worker. A message is an ingest job (a PUT upload, a delete's merge request) or an S3 event
 * notification (a browser upload landed: ../arrivals.ts decides whether it becomes a job). Jobs are grouped by bot so
 * a batch of uploads to one bot becomes one segment of its index. A bot whose jobs fail transiently reports its
 * records as batch item failures (they come back after the visibility timeout); on the last receive the use case
 * marks the files `failed` instead of throwing. `acceptArrival` is absent when the deployment has no bucket.
 */
export function ingestWorkerHandler(
  observed: { logger: Logger; metrics: InvocationMetrics },
  deps: {
    ingest: ReturnType<typeof makeIngestKnowledge>;
    acceptArrival: ((arrived: ArrivedObject) => Promise<IngestJob | undefined>) | undefined;
  },
) {
  const { logger, metrics } = observed;
  const { ingest, acceptArrival } = deps;

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

  return workerFunction<SQSEvent, SQSBatchResponse>(logger, metrics).handler(async (event) => {
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
}

class MalformedJobError extends Error {}
