import { s3MediaStoreOnFirstUse } from '#shared/kernel/aws/lazy-s3-media-store.ts';
import { requiredSetting, type Config } from '#shared/kernel/config.ts';
import {
  makeCollectMedia,
  makeProviderGet,
  type MediaStore,
  ProviderMediaFetcher,
  MEDIA_URL_SECONDS,
} from '#shared/messaging/index.ts';
import { USER_AGENT } from './user-agent.ts';

/**
 * Where received media are kept and signed (the transfer bucket's `media/`). A function that signs URLs declares
 * `buckets: { transfer: { read: ['media/'] } }` (a presigned GET works only if its signer may read the object); one
 * that stores them, `write: ['media/']` too.
 */
export function mediaStoreFromConfig(cfg: Config): MediaStore {
  return s3MediaStoreOnFirstUse(cfg, requiredSetting(cfg, 'BUCKET_TRANSFER'), MEDIA_URL_SECONDS);
}

/** Each media item gets this long to download (the report's worker has 120 s for up to 10 items and the rest). */
const ITEM_TIMEOUT_MS = 30_000;

/**
 * The inbound worker's media: fetched with the channel's credentials through the guarded provider client (SSRF guard
 * off only where private destinations are allowed, as for providers), stored, and signed.
 */
export function inboundMediaFromConfig(cfg: Config) {
  const store = mediaStoreFromConfig(cfg);
  const fetcher = new ProviderMediaFetcher({
    get: makeProviderGet({ allowPrivate: cfg.webhookAllowPrivate }),
    userAgent: USER_AGENT,
  });
  return { collect: makeCollectMedia({ fetcher, store, itemTimeoutMs: ITEM_TIMEOUT_MS }), store };
}
