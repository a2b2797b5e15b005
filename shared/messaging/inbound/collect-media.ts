import { createHash } from 'node:crypto';
import type { Channel } from '../channel.ts';
import {
  allowedMediaType,
  bareContentType,
  MAX_MEDIA_BYTES,
  MAX_MEDIA_ITEMS,
  MediaFetchError,
  type MediaFetcher,
  mediaKey,
  type MediaReference,
  type MediaStore,
  safeFileName,
  type StoredMedia,
} from '../media.ts';

export interface CollectMediaDeps {
  fetcher: MediaFetcher;
  store: Pick<MediaStore, 'put'>;
  /** Milliseconds one item may take to fetch (each item also ends at the report's deadline). */
  itemTimeoutMs: number;
  now?: () => number;
}

/**
 * A received message's media, fetched once and stored, in order, at most {@link MAX_MEDIA_ITEMS}:
 * an item that cannot be fetched (the provider refused, timed out, it is over 16 MB, of a type not taken) becomes
 * `{ contentType?, error }` and the message goes on; a store that cannot be written throws (the report is retried,
 * and the same keys are written again).
 */
export function makeCollectMedia(deps: CollectMediaDeps) {
  const now = deps.now ?? Date.now;

  return async function collectMedia(
    channel: Channel,
    messageId: string,
    references: readonly MediaReference[],
  ): Promise<StoredMedia[]> {
    const out: StoredMedia[] = [];
    for (const [index, reference] of references.slice(0, MAX_MEDIA_ITEMS).entries()) {
      out.push(await collectOne(channel, messageId, index, reference));
    }
    return out;
  };

  async function collectOne(
    channel: Channel,
    messageId: string,
    index: number,
    reference: MediaReference,
  ): Promise<StoredMedia> {
    const origin = {
      ...(reference.providerMediaId ? { providerMediaId: reference.providerMediaId } : {}),
      ...(reference.providerUrl ? { providerUrl: reference.providerUrl } : {}),
    };
    const declared = bareContentType(reference.contentType);
    const failed = (error: string, contentType = declared, fileName = safeFileName(reference.fileName)) => ({
      ...(contentType ? { contentType } : {}),
      error,
      ...(fileName ? { fileName } : {}),
      ...origin,
    });
    // A type refused by its declaration is not fetched at all.
    if (declared && !allowedMediaType(declared)) return failed(`Media of type ${declared} are not accepted`);
    let fetched: { bytes: Buffer; contentType?: string; fileName?: string };
    try {
      fetched = reference.bytes
        ? { bytes: reference.bytes }
        : await deps.fetcher.fetch(channel, reference, now() + deps.itemTimeoutMs);
    } catch (error) {
      if (error instanceof MediaFetchError) return failed(error.message);
      throw error;
    }
    const contentType = bareContentType(fetched.contentType) ?? declared;
    const fileName = safeFileName(reference.fileName ?? fetched.fileName);
    if (!contentType) return failed('The provider did not say what type the media are', undefined, fileName);
    if (!allowedMediaType(contentType))
      return failed(`Media of type ${contentType} are not accepted`, contentType, fileName);
    if (fetched.bytes.length > MAX_MEDIA_BYTES)
      return failed(`The media are larger than ${MAX_MEDIA_BYTES} bytes`, contentType, fileName);
    const key = mediaKey(channel.channelId, messageId, index);
    await deps.store.put(key, fetched.bytes, contentType, fileName);
    return {
      contentType,
      size: fetched.bytes.length,
      sha256: createHash('sha256').update(fetched.bytes).digest('hex'),
      key,
      ...(fileName ? { fileName } : {}),
      ...origin,
    };
  }
}

export type CollectMedia = ReturnType<typeof makeCollectMedia>;
