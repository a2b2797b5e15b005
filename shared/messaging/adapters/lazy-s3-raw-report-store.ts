import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../../kernel/config.ts';
import { onFirstUse } from '../../kernel/aws/on-first-use.ts';
import type { S3RawReportStore } from './s3-raw-report-store.ts';

/** Loaded on first use (the S3 client stays out of the cold start): see `kernel/aws/on-first-use.ts`. */
/** The inbound functions park a raw report in S3 only when it is over 200 KB. */
export function s3RawReportStoreOnFirstUse(cfg: Config, bucket: string): Pick<S3RawReportStore, 'put' | 'get'> {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3RawReportStore }] = await Promise.all([
        import('../../kernel/aws/s3-client.ts'),
        import('./s3-raw-report-store.ts'),
      ]);
      return new S3RawReportStore(s3Client(cfg), bucket);
    },
    { put: true, get: true },
  );
}

/** The same store over a client of the caller's own (the local mailbox, whose clients stop with it). */
export function rawReportStoreOver(s3: S3Client, bucket: string): Pick<S3RawReportStore, 'put' | 'get'> {
  return onFirstUse(async () => new (await import('./s3-raw-report-store.ts')).S3RawReportStore(s3, bucket), {
    put: true,
    get: true,
  });
}
