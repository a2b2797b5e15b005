import { s3MediaStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-media-store.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import { MEDIA_URL_SECONDS, type MediaStore } from '#shared/messaging/index.ts';

/**
 * Where received media are kept and signed (the transfer bucket's `media/`). A function that signs URLs declares
 * `buckets: { transfer: { read: ['media/'] } }` (a presigned GET works only if its signer may read the object); one
 * that stores them, `write: ['media/']` too.
 */
export function mediaStoreFromConfig(cfg: Config): MediaStore {
  return s3MediaStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER'), MEDIA_URL_SECONDS);
}
