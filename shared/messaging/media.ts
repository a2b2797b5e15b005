import type { Channel } from './channel.ts';

/**
 * Media a contact sent: fetched once by the inbound worker with the channel's credentials, stored in
 * the transfer bucket, and offered as a presigned GET. The provider's reference is kept beside it
 * (`providerMediaId` for WhatsApp, `providerUrl` for Twilio).
 */

/** Largest media item fetched or stored (WhatsApp's own ceiling for documents is 100 MB; its images 5 MB). */
export const MAX_MEDIA_BYTES = 16 * 1024 * 1024;
/** Most media items per message; a mail with more attachments lists the rest in `attachments` only. */
export const MAX_MEDIA_ITEMS = 10;
/** How long a media URL works (S3's presigned GET maximum). */
export const MEDIA_URL_SECONDS = 7 * 24 * 60 * 60;
/** How long stored media are kept: as long as the message records (90 days). */
export const MEDIA_RETENTION_DAYS = 90;

/**
 * The content types stored (everything else is `media[].error`): what WhatsApp Cloud and Twilio MMS carry
 * (images, audio, video, documents, contact cards) and the same families from mail. No HTML, script, executable or
 * archive: the URL serves the bytes with their type, and the customer's staff open them.
 */
const ALLOWED_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/heic',
  'image/heif',
  'image/bmp',
  'image/tiff',
  'audio/aac',
  'audio/amr',
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'audio/ogg',
  'audio/opus',
  'audio/wav',
  'audio/x-wav',
  'audio/webm',
  'audio/3gpp',
  'video/mp4',
  'video/3gpp',
  'video/quicktime',
  'video/webm',
  'video/mpeg',
  'application/pdf',
  'text/plain',
  'text/csv',
  'text/calendar',
  'text/vcard',
  'text/x-vcard',
  'text/directory',
  'application/rtf',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
]);

/** A content type without parameters, lowercased (`audio/ogg; codecs=opus` → `audio/ogg`). */
export function bareContentType(value: string | undefined): string | undefined {
  const bare = value?.split(';')[0]?.trim().toLowerCase();
  return bare && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(bare) ? bare : undefined;
}

/** Whether media of this type are stored. */
export function allowedMediaType(contentType: string | undefined): boolean {
  const bare = bareContentType(contentType);
  return bare !== undefined && ALLOWED_TYPES.has(bare);
}

/** Media as a provider report names it: a WhatsApp media id, a Twilio media URL, or a mail attachment's bytes. */
export interface MediaReference {
  /** What the provider says it is (the stored type is the one the download answers with, when it says one). */
  contentType?: string;
  fileName?: string;
  /** WhatsApp: the media id (fetched through the Graph API with the channel's access token). */
  providerMediaId?: string;
  /** Twilio: `MediaUrl<n>` (fetched with the account's credentials). */
  providerUrl?: string;
  /** Mail: the attachment itself (already here: nothing to fetch). */
  bytes?: Buffer;
}

/** Media fetched from a provider: the bytes and the type the provider answered with. */
export interface FetchedMedia {
  bytes: Buffer;
  contentType?: string;
  fileName?: string;
}

/** Why a media item could not be fetched: a message fit for the event (never a credential). */
export class MediaFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MediaFetchError';
  }
}

/** Fetches a provider's media with the channel's credentials (size-capped, SSRF-guarded). */
export interface MediaFetcher {
  fetch(channel: Channel, reference: MediaReference, deadline: number): Promise<FetchedMedia>;
}

/** Where media are kept, and how a URL to them is made. */
export interface MediaStore {
  put(key: string, bytes: Buffer, contentType: string, fileName?: string): Promise<void>;
  /** A presigned GET of `key`, valid {@link MEDIA_URL_SECONDS} from now. */
  url(key: string, now: Date): Promise<{ url: string; expiresAt: string }>;
}

/** One media item as the message record keeps it: where it is stored, or why it is not. */
export type StoredMedia =
  | {
      contentType: string;
      size: number;
      /** Lowercase hex. */
      sha256: string;
      key: string;
      fileName?: string;
      providerMediaId?: string;
      providerUrl?: string;
    }
  | { contentType?: string; error: string; fileName?: string; providerMediaId?: string; providerUrl?: string };

/** One media item as `message.received` and the message routes show it. */
export type MediaView =
  | {
      contentType: string;
      size: number;
      sha256: string;
      url: string;
      expiresAt: string;
      fileName?: string;
      providerMediaId?: string;
      providerUrl?: string;
    }
  | { contentType?: string; error: string; fileName?: string; providerMediaId?: string; providerUrl?: string };

/** Key of a stored media item: fixed by the message and its position, so a retried report writes the same object. */
export function mediaKey(channelId: string, messageId: string, index: number): string {
  return `media/${channelId}/${messageId}/${index}`;
}

/** A stored media item with a fresh URL (an error item as it is). */
export async function mediaView(item: StoredMedia, store: Pick<MediaStore, 'url'>, now: Date): Promise<MediaView> {
  if ('error' in item) return item;
  const { key, ...rest } = item;
  return { ...rest, ...(await store.url(key, now)) };
}

/** A file name fit for a `Content-Disposition` header and an event: no path, no control characters, 200 at most. */
export function safeFileName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const base = name.split(/[\\/]/).pop() ?? '';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim();
  return clean ? clean.slice(0, 200) : undefined;
}
