import type { Config } from '../../kernel/config.ts';
import { onFirstUse } from '../../kernel/aws/on-first-use.ts';
import type { MediaStore } from '../media.ts';

/** Loaded on first use (the S3 client and the presigner stay out of the cold start): see `kernel/aws/on-first-use.ts`. */
export function s3MediaStoreOnFirstUse(cfg: Config, bucket: string): MediaStore {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3MediaStore }] = await Promise.all([
        import('../../kernel/aws/s3-client.ts'),
        import('./s3-media-store.ts'),
      ]);
      return new S3MediaStore(s3Client(cfg), bucket);
    },
    { put: true, url: true },
  );
}
