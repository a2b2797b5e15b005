import type { IngestJob, IngestQueue } from '../knowledge-files.ts';
import { SqsJsonQueue } from '../../kernel/aws/sqs-json-queue.ts';

/** Ingest jobs on the `ingest` queue, one message each (JSON). */
export class SqsIngestQueue extends SqsJsonQueue<IngestJob> implements IngestQueue {
  enqueue(job: IngestJob): Promise<void> {
    return this.send(job);
  }
}
