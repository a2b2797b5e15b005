import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type QueuesAndBuckets, startFauxqsWithQueuesAndBuckets } from '#local/emulators.ts';

/**
 * The SQS and S3 stand-in alone, as the runner starts it (its queues and buckets made), in a temporary folder, with
 * an SQS and an S3 client on it. The S3 client sends checksums only where S3 requires them, as the product's
 * adapters do. `restart()` stops the stand-in and starts it again on the same folder (what was written survives).
 */
export async function startQueuesAndBuckets(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const open = async () => {
    const aws: QueuesAndBuckets & { stop(): Promise<void> } = await startFauxqsWithQueuesAndBuckets(dir);
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const base = { region: 'us-east-1', endpoint: aws.awsEndpoint, credentials };
    const sqs = new SQSClient(base);
    const s3 = new S3Client({
      ...base,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return { aws, sqs, s3 };
  };
  let current = await open();
  const close = async () => {
    current.sqs.destroy();
    current.s3.destroy();
    await current.aws.stop();
  };
  return {
    dir,
    get aws() {
      return current.aws;
    },
    get sqs() {
      return current.sqs;
    },
    get s3() {
      return current.s3;
    },
    async restart() {
      await close();
      current = await open();
    },
    /** Stops the stand-in and removes its folder. */
    async stop() {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type RunningQueuesAndBuckets = Awaited<ReturnType<typeof startQueuesAndBuckets>>;
