import type { Config } from '../../kernel/config.ts';
import { onFirstUse } from '../../kernel/aws/on-first-use.ts';
import type { KnowledgeObjectStore, KnowledgeUploadInbox } from '../knowledge-files.ts';

/** Loaded on first use (the S3 client stays out of the cold start): see `kernel/aws/on-first-use.ts`. */
export function s3KnowledgeObjectStoreOnFirstUse(cfg: Config, bucket: string): KnowledgeObjectStore {
  return onFirstUse<KnowledgeObjectStore>(
    async () => {
      const [{ s3Client }, { S3KnowledgeObjectStore }] = await Promise.all([
        import('../../kernel/aws/s3-client.ts'),
        import('./s3-knowledge-object-store.ts'),
      ]);
      return new S3KnowledgeObjectStore(s3Client(cfg), bucket);
    },
    { put: true, putStream: true, get: true, getRange: true, getTail: true, delete: true, deletePrefix: true },
  );
}
export function s3KnowledgeUploadInboxOnFirstUse(cfg: Config, bucket: string): KnowledgeUploadInbox {
  return onFirstUse<KnowledgeUploadInbox>(
    async () => {
      const [{ s3Client }, { S3KnowledgeObjectStore }] = await Promise.all([
        import('../../kernel/aws/s3-client.ts'),
        import('./s3-knowledge-object-store.ts'),
      ]);
      return new S3KnowledgeObjectStore(s3Client(cfg), bucket);
    },
    { presignPost: true, describe: true },
  );
}

/** The extract endpoint reads the bucket only for `{fileKey}` requests (a multipart upload needs no S3). */
