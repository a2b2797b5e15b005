import type { Config } from '../config.ts';
import { onFirstUse } from './on-first-use.ts';
import type { S3ObjectStore } from './s3-object-store.ts';

/** The object methods of {@link S3ObjectStore}: what the knowledge area's object store port asks for. */
export type S3Objects = Pick<
  S3ObjectStore,
  'put' | 'putStream' | 'get' | 'getRange' | 'getTail' | 'delete' | 'deletePrefix'
>;
/** The upload methods of {@link S3ObjectStore}: presigned POSTs and what landed. */
export type S3UploadInbox = Pick<S3ObjectStore, 'presignPost' | 'describe'>;

const load = async (cfg: Config, bucket: string) => {
  const [{ s3Client }, { S3ObjectStore }] = await Promise.all([
    import('./s3-client.ts'),
    import('./s3-object-store.ts'),
  ]);
  return new S3ObjectStore(s3Client(cfg), bucket);
};

/** A bucket's objects, loaded on first use (the S3 client stays out of the cold start): see `./on-first-use.ts`. */
export function s3ObjectStoreOnFirstUse(cfg: Config, bucket: string): S3Objects {
  return onFirstUse<S3Objects>(() => load(cfg, bucket), {
    put: true,
    putStream: true,
    get: true,
    getRange: true,
    getTail: true,
    delete: true,
    deletePrefix: true,
  });
}

/** A bucket's upload inbox (presigned POSTs, what landed), loaded on first use. */
export function s3UploadInboxOnFirstUse(cfg: Config, bucket: string): S3UploadInbox {
  return onFirstUse<S3UploadInbox>(() => load(cfg, bucket), { presignPost: true, describe: true });
}
