import type { Config } from '../config.ts';
import { onFirstUse } from './on-first-use.ts';
import type { S3RawReportStore } from './s3-raw-report-store.ts';

/**
 * {@link S3RawReportStore} loaded on first use (the S3 client stays out of the cold start): see ./on-first-use.ts.
 * The inbound functions park a raw report in S3 only when it is over 200 KB.
 */
export function s3RawReportStoreOnFirstUse(cfg: Config, bucket: string): Pick<S3RawReportStore, 'put' | 'get'> {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3RawReportStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('./s3-raw-report-store.ts'),
      ]);
      return new S3RawReportStore(s3Client(cfg), bucket);
    },
    { put: true, get: true },
  );
}
