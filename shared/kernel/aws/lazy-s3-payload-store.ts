import type { Config } from '../config.ts';
import { onFirstUse } from './on-first-use.ts';
import type { S3PayloadStore } from './s3-payload-store.ts';

/** {@link S3PayloadStore} loaded on first use (the S3 client stays out of the cold start): see ./on-first-use.ts. */
export function s3PayloadStoreOnFirstUse(cfg: Config, bucket: string): Pick<S3PayloadStore, 'put' | 'get'> {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3PayloadStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('./s3-payload-store.ts'),
      ]);
      return new S3PayloadStore(s3Client(cfg), bucket);
    },
    { put: true, get: true },
  );
}
