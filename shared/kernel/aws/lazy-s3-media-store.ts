import type { Config } from '../config.ts';
import { onFirstUse } from './on-first-use.ts';
import type { S3MediaStore } from './s3-media-store.ts';

/**
 * {@link S3MediaStore} loaded on first use (the S3 client and the presigner stay out of the cold start): see
 * ./on-first-use.ts. `urlSeconds`: how long a signed URL is valid.
 */
export function s3MediaStoreOnFirstUse(
  cfg: Config,
  bucket: string,
  urlSeconds: number,
): Pick<S3MediaStore, 'put' | 'url'> {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3MediaStore }] = await Promise.all([
        import('./s3-client.ts'),
        import('./s3-media-store.ts'),
      ]);
      return new S3MediaStore(s3Client(cfg), bucket, urlSeconds);
    },
    { put: true, url: true },
  );
}
