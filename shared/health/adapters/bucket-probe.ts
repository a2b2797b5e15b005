import { HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DependencyProbe } from '../get-health.ts';

/** The knowledge store answers when its bucket can be reached (HeadBucket: no object read, no cost). */
export function bucketProbe(s3: S3Client, bucket: string): DependencyProbe {
  return {
    name: 'knowledge store',
    async probe(signal) {
      try {
        await s3.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal });
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        throw new Error(status ? `bucket answered HTTP ${status}` : 'bucket unreachable', { cause: error });
      }
    },
  };
}
