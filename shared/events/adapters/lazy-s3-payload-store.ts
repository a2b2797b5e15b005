import type { Config } from '../../kernel/config.ts';
import { onFirstUse } from '../../kernel/aws/on-first-use.ts';
import type { PayloadStore } from '../ports.ts';

/** Loaded on first use (the S3 client stays out of the cold start): see `kernel/aws/on-first-use.ts`. */
export function s3PayloadStoreOnFirstUse(cfg: Config, bucket: string): PayloadStore {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3PayloadStore }] = await Promise.all([
        import('../../kernel/aws/s3-client.ts'),
        import('./s3-payload-store.ts'),
      ]);
      return new S3PayloadStore(s3Client(cfg), bucket);
    },
    { put: true, get: true },
  );
}
