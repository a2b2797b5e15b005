import type { Config } from '../../kernel/config.ts';
import { onFirstUse } from '../../kernel/aws/on-first-use.ts';
import type { UploadStore } from '../uploads.ts';

/** Loaded on first use (the S3 client stays out of the cold start): see `kernel/aws/on-first-use.ts`. */
/** The extract endpoint reads the bucket only for `{fileKey}` requests (a multipart upload needs no S3). */
export function s3ExtractUploadStoreOnFirstUse(cfg: Config, bucket: string): UploadStore {
  return onFirstUse(
    async () => {
      const [{ s3Client }, { S3ExtractUploadStore }] = await Promise.all([
        import('../../kernel/aws/s3-client.ts'),
        import('./s3-extract-upload-store.ts'),
      ]);
      return new S3ExtractUploadStore(s3Client(cfg), bucket);
    },
    { presignPost: true, read: true, delete: true },
  );
}

/** The inbound functions park a raw report in S3 only when it is over 200 KB. */
